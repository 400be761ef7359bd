package devchain

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/txsender"
)

func TestBlockTime(t *testing.T) {
	ts := hexutil.Uint64(5000)
	for _, c := range []struct {
		name       string
		comet      int64
		parent     uint64
		offset     int64
		ops        []Op
		wantT      uint64
		wantOffset int64
	}{
		{"plain", 1000, 900, 0, nil, 1000, 0},
		{"offset", 1000, 900, 60, nil, 1060, 60},
		{"never below parent", 1000, 1100, 0, nil, 1100, 0},
		{"increase", 1000, 900, 60, []Op{{Kind: IncreaseTime, Seconds: 3600}}, 4660, 3660},
		{"exact moves the offset", 1000, 900, 60, []Op{{Kind: SetTimestamp, Timestamp: &ts}}, 5000, 4000},
	} {
		gotT, gotOff := BlockTime(c.comet, c.parent, c.offset, c.ops)
		if gotT != c.wantT || gotOff != c.wantOffset {
			t.Errorf("%s: BlockTime = %d, %d; want %d, %d", c.name, gotT, gotOff, c.wantT, c.wantOffset)
		}
	}
}

func TestOffsetExtra(t *testing.T) {
	for _, off := range []int64{0, 1, -3600, 1 << 40} {
		if got := Offset(&types.Header{Extra: Extra(off)}); got != off {
			t.Errorf("offset %d read back as %d", off, got)
		}
	}
	if Extra(0) != nil {
		t.Error("a zero offset must leave extraData empty")
	}
}

func TestDecode(t *testing.T) {
	addr := common.HexToAddress("0xb1")
	tx := &Tx{ID: 7, Ops: []Op{{Kind: SetBalance, Address: &addr, Balance: (*hexutil.Big)(common.Big1)}}}
	got, err := Decode(Encode(tx))
	if err != nil || got.ID != 7 || len(got.Ops) != 1 || *got.Ops[0].Address != addr {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{
		[]byte("\x00ember-dev\x00{"),
		[]byte(`` + "\x00ember-dev\x00" + `{"id":1,"ops":[{"op":"balance"}]}`),
		[]byte(`` + "\x00ember-dev\x00" + `{"id":1,"ops":[{"op":"selfdestruct"}]}`),
		[]byte(`` + "\x00ember-dev\x00" + `{"id":1,"extra":true}`),
		append([]byte("\x00ember-dev\x00"), bytes.Repeat([]byte(" "), MaxSize)...),
		[]byte{0x02, 0xf8},
	} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%.40q) accepted", bad)
		}
	}
}

// TestSendRoundTrip: a dev transaction carrying an impersonated transaction
// decodes to that transaction with its sender set for any signer, and a
// transaction decoded from the same bytes without it recovers no such sender.
func TestSendRoundTrip(t *testing.T) {
	from := common.HexToAddress("0x000000000000000000000000000000000000beef")
	to := common.HexToAddress("0xb2")
	chainID := big.NewInt(31337)
	unsigned := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 3, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2), Gas: 21000, To: &to, Value: big.NewInt(5)})
	send, err := NewSend(unsigned, from, chainID)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := Decode(Encode(&Tx{ID: 1, Send: send}))
	if err != nil {
		t.Fatal(err)
	}
	got := tx.Send.Transaction()
	if got.Hash() != send.Transaction().Hash() || got.Nonce() != 3 {
		t.Fatalf("decoded %s nonce %d, want %s", got.Hash().Hex(), got.Nonce(), send.Transaction().Hash().Hex())
	}
	if sender, err := types.Sender(types.LatestSignerForChainID(chainID), got); err != nil || sender != from {
		t.Fatalf("sender %s, %v", sender.Hex(), err)
	}
	if imp, ok := txsender.Get(got); !ok || imp != from {
		t.Fatalf("txsender.Get: %s %v", imp.Hex(), ok)
	}
	_, r, s := got.RawSignatureValues()
	if r.Cmp(new(big.Int).SetBytes(from[:])) != 0 || s.Int64() != 1 {
		t.Fatalf("fake signature r %x s %v", r, s)
	}
	plain := new(types.Transaction)
	if err := plain.UnmarshalBinary(send.Tx); err != nil {
		t.Fatal(err)
	}
	if _, ok := txsender.Get(plain); ok {
		t.Fatal("a transaction decoded without txsender.Set reports an impersonated sender")
	}
	if _, err := Decode(Encode(&Tx{ID: 2, Send: send, Ops: []Op{{Kind: IncreaseTime}}})); err == nil {
		t.Fatal("a send with ops decoded")
	}
}
