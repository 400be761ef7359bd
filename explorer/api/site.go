package api

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/emberchain/ember/explorer/web"
)

// Site is the whole explorer over HTTP: the JSON API (under /api, and the
// few Blockscout paths outside it) and the pages at the root.
func Site(b *Backend, log *slog.Logger) http.Handler {
	apiHandler := Handler(b, log)
	pages := web.Handler(b.Prefix)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isAPIPath(r.URL.Path) {
			apiHandler.ServeHTTP(w, r)
			return
		}
		pages.ServeHTTP(w, r)
	})
}

// isAPIPath: the paths the JSON API answers, found or not.
func isAPIPath(p string) bool {
	return p == "/api" || p == "/health" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/proxy/")
}
