package metrics

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/emberchain/ember/httpserve"
)

// Handler is the exposition of m's series and of the default registry.
func Handler(m *Metrics) http.Handler {
	g := prometheus.Gatherers{prometheus.DefaultGatherer, m.reg}
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Serve listens on addr and serves Handler(m) at /metrics: Ember's registry
// and Prometheus' default one, where CometBFT's instrumentation (go-kit over
// client_golang) registers its cometbft_* series.
func Serve(addr string, m *Metrics, log *slog.Logger) (*httpserve.Server, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(m))
	return httpserve.Start("metrics", addr, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, time.Second, log)
}
