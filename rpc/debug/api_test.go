package debug

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/eth/tracers"
)

func TestJobBoundsTimeoutAndConcurrency(t *testing.T) {
	api := NewAPI(nil, nil, Config{MaxTimeout: 30 * time.Second, Concurrency: 2})
	for _, c := range []struct{ in, want string }{{"", "5s"}, {"1s", "1s"}, {"10m", "30s"}} {
		cfg := &tracers.TraceConfig{}
		if c.in != "" {
			cfg.Timeout = &c.in
		}
		release, err := api.job(context.Background(), cfg)
		if err != nil || *cfg.Timeout != c.want {
			t.Fatalf("timeout %q: got %v, %v; want %s", c.in, cfg.Timeout, err, c.want)
		}
		release()
	}
	bad := "-1s"
	if _, err := api.job(context.Background(), &tracers.TraceConfig{Timeout: &bad}); err == nil {
		t.Fatal("negative timeout accepted")
	}
	// Two slots: a third job waits until its context ends.
	r1, _ := api.job(context.Background(), &tracers.TraceConfig{})
	r2, _ := api.job(context.Background(), &tracers.TraceConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := api.job(ctx, &tracers.TraceConfig{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third job with two slots taken: %v", err)
	}
	r1()
	r3, err := api.job(context.Background(), &tracers.TraceConfig{})
	if err != nil {
		t.Fatalf("job after a slot was freed: %v", err)
	}
	r2()
	r3()
}
