// Package debug implements the debug_ JSON-RPC namespace: transaction,
// block and call tracing with go-ethereum's tracers (struct logger, the
// native tracers and JavaScript tracers), and the raw RLP getters.
//
// Tracing is go-ethereum's own eth/tracers API over the node's chain, so
// traces are byte-for-byte what geth produces for the same execution; this
// package chooses which of its methods are served (none that read or write
// files, nor bad blocks) and bounds each job's time and how many run at once.
package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/rpc"

	// Register the native and JavaScript tracers with tracers.DefaultDirectory.
	_ "github.com/ethereum/go-ethereum/eth/tracers/js"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native"
)

// DefaultTimeout is a trace's time limit when the request names none (geth's).
const DefaultTimeout = 5 * time.Second

// Config bounds tracing.
type Config struct {
	// MaxTimeout caps the "timeout" a request may ask for; 0 = no cap.
	MaxTimeout time.Duration
	// Concurrency is how many tracing requests run at once; others wait
	// for a slot until their request ends. 0 = 1.
	Concurrency int
}

// API is the debug namespace.
type API struct {
	tracer *tracers.API
	tb     tracers.Backend
	raw    RawBackend
	cfg    Config
	slots  chan struct{}
	// traceCall is geth's TraceCall, called through reflection because its
	// call-arguments type lives in an internal go-ethereum package.
	traceCall reflect.Value
}

// NewAPI serves tracing over tb and the raw getters over raw.
func NewAPI(tb tracers.Backend, raw RawBackend, cfg Config) *API {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	t := tracers.NewAPI(tb)
	return &API{tracer: t, tb: tb, raw: raw, cfg: cfg, slots: make(chan struct{}, cfg.Concurrency),
		traceCall: reflect.ValueOf(t.TraceCall)}
}

// job bounds cfg's timeout (default DefaultTimeout, at most MaxTimeout)
// and waits for a tracing slot. The returned release frees the slot.
func (api *API) job(ctx context.Context, cfg *tracers.TraceConfig) (func(), error) {
	d := DefaultTimeout
	if cfg.Timeout != nil {
		var err error
		if d, err = time.ParseDuration(*cfg.Timeout); err != nil || d <= 0 {
			return nil, &invalidParamsError{fmt.Sprintf("invalid timeout %q: want a positive duration such as \"10s\"", *cfg.Timeout)}
		}
	}
	if api.cfg.MaxTimeout > 0 && d > api.cfg.MaxTimeout {
		d = api.cfg.MaxTimeout
	}
	bounded := d.String()
	cfg.Timeout = &bounded
	select {
	case api.slots <- struct{}{}:
		return func() { <-api.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no tracing slot free before the request ended (%d tracing jobs at once): %w", cap(api.slots), ctx.Err())
	}
}

// orDefault gives a nil config a value so job can bound its timeout.
func orDefault(cfg *tracers.TraceConfig) *tracers.TraceConfig {
	if cfg == nil {
		return &tracers.TraceConfig{}
	}
	return cfg
}

// TraceTransaction replays the transaction's block up to it on the parent
// state and traces it (debug_traceTransaction).
func (api *API) TraceTransaction(ctx context.Context, hash common.Hash, cfg *tracers.TraceConfig) (any, error) {
	cfg = orDefault(cfg)
	release, err := api.job(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer release()
	return api.tracer.TraceTransaction(ctx, hash, cfg)
}

// TraceBlockByNumber traces every transaction of a block:
// [{txHash, result}] (debug_traceBlockByNumber).
func (api *API) TraceBlockByNumber(ctx context.Context, number rpc.BlockNumber, cfg *tracers.TraceConfig) (any, error) {
	cfg = orDefault(cfg)
	release, err := api.job(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer release()
	block, err := api.tb.BlockByNumber(ctx, number)
	if err != nil || block == nil {
		return api.tracer.TraceBlockByNumber(ctx, number, cfg) // geth's own "not found"
	}
	if res, ok, err := api.traceEach(ctx, block, cfg); ok {
		return res, err
	}
	return api.tracer.TraceBlockByNumber(ctx, number, cfg)
}

// TraceBlockByHash is TraceBlockByNumber by block hash.
func (api *API) TraceBlockByHash(ctx context.Context, hash common.Hash, cfg *tracers.TraceConfig) (any, error) {
	cfg = orDefault(cfg)
	release, err := api.job(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer release()
	block, err := api.tb.BlockByHash(ctx, hash)
	if err != nil || block == nil {
		return api.tracer.TraceBlockByHash(ctx, hash, cfg)
	}
	if res, ok, err := api.traceEach(ctx, block, cfg); ok {
		return res, err
	}
	return api.tracer.TraceBlockByHash(ctx, hash, cfg)
}

// OtherChanges is implemented by a backend whose blocks can change the
// state other than through their EVM transactions (Ember's native
// transactions and unbonding maturity). go-ethereum's block tracer re-runs
// only the EVM transactions on the parent's state, so for such a block
// each transaction is traced on the state the backend's replay gives it.
type OtherChanges interface {
	ReplaysOther(ctx context.Context, block *types.Block) (bool, error)
}

// txTraceResult is one entry of a block trace, as go-ethereum writes it.
type txTraceResult struct {
	TxHash common.Hash `json:"txHash"`
	Result any         `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// traceEach traces block transaction by transaction when the backend says
// its state changes are not all EVM ones; ok is false otherwise.
func (api *API) traceEach(ctx context.Context, block *types.Block, cfg *tracers.TraceConfig) (any, bool, error) {
	oc, ok := api.tb.(OtherChanges)
	if !ok {
		return nil, false, nil
	}
	other, err := oc.ReplaysOther(ctx, block)
	if err != nil {
		return nil, true, err
	}
	if !other {
		return nil, false, nil
	}
	results := make([]*txTraceResult, len(block.Transactions()))
	for i, tx := range block.Transactions() {
		res, err := api.tracer.TraceTransaction(ctx, tx.Hash(), cfg)
		if err != nil {
			return nil, true, err
		}
		results[i] = &txTraceResult{TxHash: tx.Hash(), Result: res}
	}
	return results, true, nil
}

// TraceCall traces a call on the state of a block (default latest), with
// geth's state and block overrides and txIndex in the config
// (debug_traceCall).
func (api *API) TraceCall(ctx context.Context, args json.RawMessage, bnh *rpc.BlockNumberOrHash, cfg *tracers.TraceCallConfig) (any, error) {
	argsType := api.traceCall.Type().In(1)
	argv := reflect.New(argsType)
	if err := json.Unmarshal(args, argv.Interface()); err != nil {
		return nil, &invalidParamsError{"invalid argument 0: " + err.Error()}
	}
	if cfg == nil {
		cfg = &tracers.TraceCallConfig{}
	}
	release, err := api.job(ctx, &cfg.TraceConfig)
	if err != nil {
		return nil, err
	}
	defer release()
	out := api.traceCall.Call([]reflect.Value{reflect.ValueOf(ctx), argv.Elem(), reflect.ValueOf(bnh), reflect.ValueOf(cfg)})
	if e := out[1].Interface(); e != nil {
		return nil, e.(error)
	}
	return out[0].Interface(), nil
}

// invalidParamsError is -32602.
type invalidParamsError struct{ msg string }

func (e *invalidParamsError) Error() string  { return e.msg }
func (e *invalidParamsError) ErrorCode() int { return -32602 }
