package devchain

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
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
