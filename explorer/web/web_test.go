package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPageRoutes: every page of Blockscout's URL scheme answers its shell
// (200, HTML, the page's module named, the title); malformed ids and
// unknown paths answer the not-found shell with 404.
func TestPageRoutes(t *testing.T) {
	h := Handler("ember")
	hash := "0x" + strings.Repeat("ab", 32)
	addr := "0x" + strings.Repeat("12", 20)
	const bech = "ember1zgfpyysjzgfpyysjzgfpyysjzgfpyysj95wvxj" // 0x1212… in bech32
	for _, c := range []struct {
		path, page, title string
		status            int
	}{
		{"/", "home", "Ember explorer", 200},
		{"/blocks", "blocks", "Blocks", 200},
		{"/txs", "txs", "Transactions", 200},
		{"/tokens", "tokens", "Tokens", 200},
		{"/verified-contracts", "verified-contracts", "Verified contracts", 200},
		{"/validators", "validators", "Validators", 200},
		{"/gas-tracker", "gas-tracker", "Gas tracker", 200},
		{"/search-results?q=%3Cb%3E", "search-results", "Search: &lt;b&gt;", 200},
		{"/block/0", "block", "Block 0", 200},
		{"/block/123", "block", "Block 123", 200},
		{"/block/" + hash, "block", "Block 0xababab…ababab", 200},
		{"/tx/" + hash, "tx", "Transaction 0xababab…ababab", 200},
		{"/address/" + addr, "address", "Address 0x121212…121212", 200},
		{"/address/" + bech, "address", "Address ember1zg…95wvxj", 200},
		{"/token/" + addr, "token", "Token 0x121212…121212", 200},
		{"/token/" + addr + "/instance/42", "instance", "Token 0x121212…121212 #42", 200},

		{"/block/012", "not-found", "Not found", 404},
		{"/block/-1", "not-found", "Not found", 404},
		{"/block/0x12", "not-found", "Not found", 404},
		{"/tx/0x12", "not-found", "Not found", 404},
		{"/tx/" + hash + "00", "not-found", "Not found", 404},
		{"/address/0xzz", "not-found", "Not found", 404},
		{"/address/cosmos1zgfpyysjzgfpyysjzgfpyysjzgfpyysj95wvxj", "not-found", "Not found", 404},
		{"/address/ember1zgfpyysjzgfpyysjzgfpyysjzgfpyysj95wvxk", "not-found", "Not found", 404}, // bad checksum
		{"/token/" + addr + "/instance/x", "not-found", "Not found", 404},
		{"/token/" + addr + "/instance/01", "not-found", "Not found", 404},
		{"/nope", "not-found", "Not found", 404},
		{"/blocks/extra", "not-found", "Not found", 404},
	} {
		r := get(t, h, c.path)
		b := body(t, r)
		if r.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.path, r.StatusCode, c.status)
		}
		if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s: content type %q", c.path, ct)
		}
		if !strings.Contains(b, `<meta name="ember-page" content="`+c.page+`">`) {
			t.Errorf("%s: page is not %s:\n%s", c.path, c.page, b)
		}
		if !strings.Contains(b, `<meta name="ember-prefix" content="ember">`) {
			t.Errorf("%s: prefix not in the shell", c.path)
		}
		if !strings.Contains(b, "<title>"+c.title+" · Ember</title>") {
			t.Errorf("%s: title is not %q", c.path, c.title)
		}
		if r.Header.Get("Cache-Control") != "no-cache" || r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: headers %v", c.path, r.Header)
		}
	}
}

// TestAssets: the shell's asset URLs carry the content hash and are served
// with their types and a long cache life; a stale hash or a missing file
// is a 404.
func TestAssets(t *testing.T) {
	h := Handler("ember")
	shell := body(t, get(t, h, "/"))
	base := "/static/" + assets.hash + "/"
	for file, ct := range map[string]string{
		"app.js":      "text/javascript; charset=utf-8",
		"lib.js":      "text/javascript; charset=utf-8",
		"theme.js":    "text/javascript; charset=utf-8",
		"style.css":   "text/css; charset=utf-8",
		"favicon.svg": "image/svg+xml",
	} {
		if file != "lib.js" && !strings.Contains(shell, base+file) {
			t.Errorf("shell does not link %s", base+file)
		}
		r := get(t, h, base+file)
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != ct {
			t.Errorf("%s: %d %q, want 200 %q", file, r.StatusCode, r.Header.Get("Content-Type"), ct)
		}
		if r.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s: cache %q", file, r.Header.Get("Cache-Control"))
		}
		if len(body(t, r)) == 0 {
			t.Errorf("%s: empty", file)
		}
	}
	for _, p := range []string{"/static/000000000000/app.js", base + "missing.js"} {
		if r := get(t, h, p); r.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", p, r.StatusCode)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

// TestEveryPageHasAModule: each page the server names has its module in
// the embedded tree (a missing one would only show in a browser).
func TestEveryPageHasAModule(t *testing.T) {
	for _, r := range routes("ember") {
		if _, err := assets.fs.Open("pages/" + r.name + ".js"); err != nil {
			t.Errorf("page %s: %v", r.name, err)
		}
	}
}
