package eth

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

func simBlocks(t *testing.T, raw string) []SimBlock {
	t.Helper()
	var blocks []SimBlock
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func TestNumberSimBlocks(t *testing.T) {
	base := &types.Header{Number: big.NewInt(100), Time: 1000}
	type nt struct{ number, time uint64 }
	for _, c := range []struct {
		name, blocks string
		want         []nt
		code         int
		msg          string
	}{
		{"defaults", `[{}, {}]`, []nt{{101, 1012}, {102, 1024}}, 0, ""},
		{"gap filled 12 s apart", `[{"blockOverrides":{"number":"0x68","time":"0x7d0"}}, {}]`,
			[]nt{{101, 1012}, {102, 1024}, {103, 1036}, {104, 2000}, {105, 2012}}, 0, ""},
		{"number not after the previous", `[{"blockOverrides":{"number":"0x66"}}, {"blockOverrides":{"number":"0x66"}}]`, nil,
			-38020, "block numbers must be in order: 102 <= 102"},
		{"number not after the base", `[{"blockOverrides":{"number":"0x64"}}]`, nil, -38020, "block numbers must be in order: 100 <= 100"},
		{"time not after the previous", `[{"blockOverrides":{"time":"0x3e8"}}]`, nil, -38021, "block timestamps must be in order: 1000 <= 1000"},
		{"256 past the base", `[{"blockOverrides":{"number":"0x164"}}]`, nil, 0, ""},
		{"257 past the base", `[{"blockOverrides":{"number":"0x165"}}]`, nil, -38026, "too many blocks"},
		{"time overflow", `[{"blockOverrides":{"time":"0xffffffffffffffff"}}, {}]`, nil, -38021, "block timestamps overflow after 18446744073709551615"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := numberSimBlocks(base, simBlocks(t, c.blocks))
			if c.code != 0 {
				var se *simError
				if !errors.As(err, &se) || se.code != c.code || se.msg != c.msg {
					t.Fatalf("got %v, want %d %q", err, c.code, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				return
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d blocks, want %d", len(got), len(c.want))
			}
			for i, b := range got {
				if n, tm := b.BlockOverrides.Number.ToInt().Uint64(), uint64(*b.BlockOverrides.Time); n != c.want[i].number || tm != c.want[i].time {
					t.Errorf("block %d: number %d time %d, want %+v", i, n, tm, c.want[i])
				}
			}
		})
	}
	if _, err := numberSimBlocks(&types.Header{Number: big.NewInt(1), Time: math.MaxUint64 - 5}, simBlocks(t, `[{}]`)); err == nil {
		t.Error("a default time past 2^64 was accepted")
	}
}

func TestSimBlockUnknownKeys(t *testing.T) {
	for raw, want := range map[string]string{
		`{"blockOverrides":{"feeRecipent":"0x00000000000000000000000000000000000000aa"}}`:               `unknown field "feeRecipent" in block override`,
		`{"stateOverrides":{"0x00000000000000000000000000000000000000aa":{"balanse":"0x1"}}}`:           `unknown field "balanse" in state override for 0x00000000000000000000000000000000000000AA`,
		`{"blockOverrides":{"FeeRecipient":"0x00000000000000000000000000000000000000aa","TIME":"0x1"}}`: "",
	} {
		var b SimBlock
		err := json.Unmarshal([]byte(raw), &b)
		if (err == nil && want != "") || (err != nil && err.Error() != want) {
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
}

func TestCheckSimLimits(t *testing.T) {
	many := func(n int) []TransactionArgs { return make([]TransactionArgs, n) }
	for _, c := range []struct {
		blocks []SimBlock
		code   int
		msg    string
	}{
		{nil, -32602, "empty input"},
		{make([]SimBlock, 257), -38026, "too many blocks"},
		{[]SimBlock{{Calls: many(5001)}}, -38026, "too many calls in block: 5001 > 5000"},
		{[]SimBlock{{Calls: many(5000)}, {Calls: many(5000)}, {Calls: many(1)}}, -38026, "too many calls: 10001 > 10000"},
	} {
		err := checkSimLimits(c.blocks)
		var re rpc.Error
		if !errors.As(err, &re) || re.ErrorCode() != c.code || err.Error() != c.msg {
			t.Errorf("got %v, want %d %q", err, c.code, c.msg)
		}
	}
	if err := checkSimLimits([]SimBlock{{Calls: many(5000)}, {Calls: many(5000)}}); err != nil {
		t.Error(err)
	}
}
