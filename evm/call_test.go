package evm_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/evm"
)

// deadlineOnly is a context that nothing cancels but that carries a
// deadline, as the JSON-RPC fast path gives eth_call.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.at, true }

// TestCallStops: an endless call stops at its time budget, at its context's
// deadline even when the context has no Done channel, and when its context
// is canceled; each answers the timeout error.
func TestCallStops(t *testing.T) {
	cfg := evm.ChainConfig(big.NewInt(4242))
	header := &types.Header{Number: big.NewInt(1), GasLimit: 30_000_000, BaseFee: big.NewInt(1e9), Time: 1, Difficulty: new(big.Int)}
	loop := common.HexToAddress("0x100f")
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	st.SetCode(loop, []byte{byte(vm.JUMPDEST), byte(vm.PUSH1), 0, byte(vm.JUMP)}, tracing.CodeChangeUnspecified)
	st.Finalise(evm.Rules(cfg, header.Number, header.Time))
	msg := &core.Message{To: &loop, Value: new(uint256.Int), GasLimit: 1 << 50,
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int), BlobGasFeeCap: new(uint256.Int)}
	msg = msg.SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck() // an eth_call's, as go-ethereum's

	after := func(d time.Duration) context.Context { return deadlineOnly{context.Background(), time.Now().Add(d)} }
	canceled := func(d time.Duration) context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(d, cancel)
		return ctx
	}
	for _, c := range []struct {
		name    string
		ctx     func(time.Duration) context.Context
		timeout time.Duration
		atLeast time.Duration
	}{
		{"budget", func(time.Duration) context.Context { return context.Background() }, 100 * time.Millisecond, 100 * time.Millisecond},
		{"deadline, no Done", after, 0, 150 * time.Millisecond},
		{"deadline before budget", after, time.Hour, 100 * time.Millisecond},
		{"canceled", canceled, 0, 100 * time.Millisecond},
	} {
		ctx, start := c.ctx(c.atLeast), time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := evm.Call(ctx, cfg, evm.BlockContext(cfg, header, noHeaders{}), st.Copy(), msg, evm.CallOptions{Timeout: c.timeout})
			done <- err
		}()
		select {
		case err := <-done:
			var timeout *evm.TimeoutError
			if !errors.As(err, &timeout) || timeout.Timeout != c.timeout {
				t.Errorf("%s: %v, want the timeout error of %v", c.name, err, c.timeout)
			}
			if took := time.Since(start); took < c.atLeast {
				t.Errorf("%s: stopped after %v, before %v", c.name, took, c.atLeast)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still running after 10 s", c.name)
		}
	}
}
