package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// revertTracer answers block 5's failed call as reverting with out (and
// the EVM's error evmErr); it counts its traces.
type revertTracer struct {
	fakeTracer
	out    []byte
	evmErr string
	traces *int
}

func (r revertTracer) CallTrace(_ context.Context, hash common.Hash) (*explorer.CallTrace, error) {
	if hash != hashOf("tx", 5) {
		return nil, explorer.ErrNotFound
	}
	*r.traces++
	return &explorer.CallTrace{Type: "CALL", From: fakeAlice, To: &fakeToken, Output: r.out, Error: r.evmErr}, nil
}

func abiEncoded(t *testing.T, sig, typ string, v any) []byte {
	t.Helper()
	ty, err := abi.NewType(typ, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := abi.Arguments{{Type: ty}}.Pack(v)
	if err != nil {
		t.Fatal(err)
	}
	return append(crypto.Keccak256([]byte(sig))[:4], packed...)
}

// TestRevertReasons: a failed transaction's result is its decoded reason
// (require's message, a named Panic code, the verified contract's custom
// error with its arguments), revert_reason is the error as a DecodedInput
// or {raw}, in the transaction, the lists and /revert-reason, each traced
// once.
func TestRevertReasons(t *testing.T) {
	tx5 := hashOf("tx", 5).Hex()
	unknown := abiEncoded(t, "Other(uint256)", "uint256", big.NewInt(3))
	for _, c := range []struct {
		name, evmErr, result, reason, endpoint string
		out                                    []byte
	}{
		{"Error(string)", "execution reverted", "not allowed",
			`{"method_call":"Error(string reason)","method_id":"08c379a0","parameters":[{"name":"reason","type":"string","value":"not allowed"}]}`,
			`{"revert_reason":"not allowed","error":"execution reverted"}`, abiEncoded(t, "Error(string)", "string", "not allowed")},
		{"Panic(uint256)", "execution reverted", "Panic(0x11): arithmetic underflow or overflow",
			`{"method_call":"Panic(uint256 code)","method_id":"4e487b71","parameters":[{"name":"code","type":"uint256","value":"17"}]}`,
			`{"revert_reason":"Panic(0x11): arithmetic underflow or overflow","error":"execution reverted"}`, abiEncoded(t, "Panic(uint256)", "uint256", big.NewInt(0x11))},
		{"custom error", "execution reverted", "NotEnough(have: 1, need: 5)",
			`{"method_call":"NotEnough(uint256 have, uint256 need)","method_id":"8b29af59","parameters":[{"name":"have","type":"uint256","value":"1"},{"name":"need","type":"uint256","value":"5"}]}`,
			`{"revert_reason":"NotEnough(have: 1, need: 5)","error":"execution reverted"}`, fakeNotEnough},
		{"undeclared error", "execution reverted", "execution reverted", `{"raw":"0x` + common.Bytes2Hex(unknown) + `"}`,
			`{"revert_reason":null,"error":"execution reverted"}`, unknown},
		{"out of gas", "out of gas", "out of gas", `null`, `{"revert_reason":null,"error":"out of gas"}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			traces := 0
			st := newFakeStore()
			head := st.blocks[len(st.blocks)-1].Number
			h := Handler(&Backend{Store: st, Status: func() (uint64, bool, uint64, bool) { return head, true, head, true },
				Prefix: "ember", Tracer: revertTracer{out: c.out, evmErr: c.evmErr, traces: &traces},
				Now: func() time.Time { return time.Unix(int64(fakeTimeBase)+200, 0) }}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			var tx struct {
				Result       string          `json:"result"`
				Status       string          `json:"status"`
				RevertReason json.RawMessage `json:"revert_reason"`
			}
			code, body := get(t, h, "/api/v2/transactions/"+tx5)
			if err := json.Unmarshal(body, &tx); code != 200 || err != nil {
				t.Fatalf("%d %s", code, body)
			}
			if tx.Status != "error" || tx.Result != c.result || string(tx.RevertReason) != c.reason {
				t.Fatalf("status %q result %q revert_reason %s\nwant result %q revert_reason %s", tx.Status, tx.Result, tx.RevertReason, c.result, c.reason)
			}
			// The list carries the same, from the trace already made.
			var list struct {
				Items []struct {
					Hash, Result string
					RevertReason json.RawMessage `json:"revert_reason"`
				} `json:"items"`
			}
			_, body = get(t, h, "/api/v2/transactions?block_number=6&index=0&items_count=50")
			if err := json.Unmarshal(body, &list); err != nil || len(list.Items) == 0 || list.Items[0].Hash != tx5 ||
				list.Items[0].Result != c.result || string(list.Items[0].RevertReason) != c.reason {
				t.Fatalf("list: %s", body)
			}
			if _, body = get(t, h, "/api/v2/transactions/"+tx5+"/revert-reason"); string(body) != c.endpoint {
				t.Fatalf("revert-reason %s, want %s", body, c.endpoint)
			}
			if traces != 1 {
				t.Fatalf("traced %d times, want once", traces)
			}
		})
	}
}
