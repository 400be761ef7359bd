package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSiteRoutes: /api and the Blockscout paths outside it reach the JSON
// API (a JSON 404 when unknown), everything else the pages.
func TestSiteRoutes(t *testing.T) {
	h := Site(&Backend{Prefix: "ember"}, nil)
	for path, want := range map[string]string{
		"/api/v2/nope":  "application/json",
		"/api/nope":     "application/json",
		"/proxy/nope":   "application/json",
		"/nope":         "text/html; charset=utf-8",
		"/api-not-this": "text/html; charset=utf-8",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound || !strings.HasPrefix(rec.Header().Get("Content-Type"), want) {
			t.Errorf("%s: %d %q, want 404 %q", path, rec.Code, rec.Header().Get("Content-Type"), want)
		}
	}
}
