// Package web serves the explorer's pages: an HTML shell per route of
// Blockscout's URL scheme, and the browser code (plain ES modules and CSS
// embedded in the binary) that renders each page from the /api/v2 JSON.
// The pages read the same API the outside world reads, so they work alike
// in-process and for `emberd explorer --rpc URL`.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/emberchain/ember/accounts"
)

//go:embed static
var staticFS embed.FS

// assets is the embedded static tree with its content hash: files are
// served under /static/<hash>/, so a browser may cache them for good and a
// new binary's files have new URLs. Each compressible file is gzipped once
// here, when the binary starts, and served as is to clients that accept
// gzip: no request compresses an asset. Doing it at start rather than
// committing .gz files beside the sources means an edited asset can never
// be served with a stale compressed twin.
var assets = loadAssets()

type assetSet struct {
	fs   fs.FS
	hash string
	// files maps a path under static/ to its bytes, gzipped bytes and
	// ETags.
	files map[string]*asset
}

// asset is one static file: raw is served to clients without gzip, gz
// (nil when gzip would not make it smaller or it is under
// MinCompressSize) to the others. Each has its own strong ETag, since the
// bytes differ.
type asset struct {
	raw, gz       []byte
	etag, gzipTag string
}

func loadAssets() assetSet {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	var names []string
	if err := fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	}); err != nil {
		panic(err)
	}
	sort.Strings(names)
	h := sha256.New()
	files := make(map[string]*asset, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(sub, n)
		if err != nil {
			panic(err)
		}
		h.Write([]byte(n))
		h.Write(b)
		sum := sha256.Sum256(b)
		a := &asset{raw: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		if compressible(assetType(n)) && len(b) >= MinCompressSize {
			if z := gzipBest(b); len(z) < len(b) {
				a.gz, a.gzipTag = z, `"`+hex.EncodeToString(sum[:8])+`-gzip"`
			}
		}
		files[n] = a
	}
	return assetSet{fs: sub, hash: hex.EncodeToString(h.Sum(nil))[:12], files: files}
}

// gzipBest compresses an asset at the best ratio: it is done once.
func gzipBest(b []byte) []byte {
	var out bytes.Buffer
	z, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	_, _ = z.Write(b)
	_ = z.Close()
	return out.Bytes()
}

// assetType is a static file's Content-Type.
func assetType(file string) string {
	if path.Ext(file) == ".js" {
		return "text/javascript; charset=utf-8" // some systems' mime tables lack it
	}
	if ct := mime.TypeByExtension(path.Ext(file)); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// Handler serves the pages and their assets. prefix is the chain's bech32
// account prefix (ember): /address/ember1… is a valid address URL, and the
// pages spell addresses both ways.
func Handler(prefix string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /static/{hash}/{file...}", serveAsset)
	for _, r := range routes(prefix) {
		r.prefix = prefix
		mux.Handle("GET "+r.pattern, r)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		renderShell(w, http.StatusNotFound, page{Name: "not-found", Title: "Not found"}, prefix)
	})
	return mux
}

// serveAsset answers an embedded file at its hashed URL; a stale hash is a
// 404 (the file under it may have changed). A client accepting gzip gets
// the file's precompressed bytes with their Content-Length; http.ServeContent
// answers If-None-Match (304) against whichever bytes are sent, and ranges
// of the plain ones.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	a, ok := assets.files[file]
	if r.PathValue("hash") != assets.hash || !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	ct := assetType(file)
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	body, etag := a.raw, a.etag
	if compressible(ct) {
		addVary(h)
	}
	if a.gz != nil && AcceptsGzip(r.Header.Get("Accept-Encoding")) {
		body, etag = a.gz, a.gzipTag
		h.Set("Content-Encoding", "gzip")
		// http.ServeContent leaves Content-Length out once
		// Content-Encoding is set, so it is set here; a range of the
		// compressed bytes is of no use to anyone, so the whole file is
		// sent instead (a server may ignore Range).
		h.Set("Content-Length", strconv.Itoa(len(body)))
		r.Header.Del("Range")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", assetTime, bytes.NewReader(body))
}

// assetTime is the zero time: embedded files carry no modification time,
// so caching goes by the URL's hash alone.
var assetTime time.Time

// isAddress reports whether s is a 0x or bech32 (prefix1…) address.
func isAddress(prefix, s string) bool {
	_, err := accounts.ParseAddress(prefix, s)
	return err == nil
}

// page is what the shell tells the browser code: which page to render.
type page struct {
	Name  string // the page module's name (home, block, tx, …)
	Title string
}

// route is one page URL pattern; valid says whether its path values name
// an object the page can look up (anything else is a 404 shell).
type route struct {
	pattern string
	name    string
	title   func(r *http.Request) string
	valid   func(r *http.Request) bool
	prefix  string
}

func (rt route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rt.valid != nil && !rt.valid(r) {
		renderShell(w, http.StatusNotFound, page{Name: "not-found", Title: "Not found"}, rt.prefix)
		return
	}
	renderShell(w, http.StatusOK, page{Name: rt.name, Title: rt.title(r)}, rt.prefix)
}

var (
	reHash   = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	reNumber = regexp.MustCompile(`^(0|[1-9][0-9]{0,18})$`)
	reID     = regexp.MustCompile(`^(0|[1-9][0-9]{0,77})$`) // a uint256 token id
)

func fixed(s string) func(*http.Request) string { return func(*http.Request) string { return s } }

// short abbreviates a hash or address for a title: 0x1234…abcd.
func short(s string) string {
	if len(s) <= 16 {
		return s
	}
	return s[:8] + "…" + s[len(s)-6:]
}

func routes(prefix string) []route {
	addr := func(v string) func(*http.Request) bool {
		return func(r *http.Request) bool { return isAddress(prefix, r.PathValue(v)) }
	}
	return []route{
		{pattern: "/{$}", name: "home", title: fixed("Ember explorer")},
		{pattern: "/blocks", name: "blocks", title: fixed("Blocks")},
		{pattern: "/txs", name: "txs", title: fixed("Transactions")},
		{pattern: "/tokens", name: "tokens", title: fixed("Tokens")},
		{pattern: "/verified-contracts", name: "verified-contracts", title: fixed("Verified contracts")},
		{pattern: "/validators", name: "validators", title: fixed("Validators")},
		{pattern: "/proposals", name: "proposals", title: fixed("Governance")},
		{pattern: "/proposal/{id}", name: "proposal",
			title: func(r *http.Request) string { return "Proposal #" + r.PathValue("id") },
			valid: func(r *http.Request) bool { return reNumber.MatchString(r.PathValue("id")) }},
		{pattern: "/gas-tracker", name: "gas-tracker", title: fixed("Gas tracker")},
		{pattern: "/search-results", name: "search-results", title: func(r *http.Request) string {
			return "Search: " + r.URL.Query().Get("q")
		}},
		{pattern: "/block/{id}", name: "block",
			title: func(r *http.Request) string { return "Block " + short(r.PathValue("id")) },
			valid: func(r *http.Request) bool {
				id := r.PathValue("id")
				return reNumber.MatchString(id) || reHash.MatchString(id)
			}},
		{pattern: "/tx/{hash}", name: "tx",
			title: func(r *http.Request) string { return "Transaction " + short(r.PathValue("hash")) },
			valid: func(r *http.Request) bool { return reHash.MatchString(r.PathValue("hash")) }},
		{pattern: "/address/{hash}", name: "address",
			title: func(r *http.Request) string { return "Address " + short(r.PathValue("hash")) },
			valid: addr("hash")},
		{pattern: "/token/{hash}", name: "token",
			title: func(r *http.Request) string { return "Token " + short(r.PathValue("hash")) },
			valid: addr("hash")},
		{pattern: "/token/{hash}/instance/{id}", name: "instance",
			title: func(r *http.Request) string {
				return "Token " + short(r.PathValue("hash")) + " #" + short(r.PathValue("id"))
			},
			valid: func(r *http.Request) bool {
				return isAddress(prefix, r.PathValue("hash")) && reID.MatchString(r.PathValue("id"))
			}},
	}
}

var shell = template.Must(template.New("shell").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="ember-page" content="{{.Page.Name}}">
<meta name="ember-prefix" content="{{.Prefix}}">
<title>{{.Page.Title}} · Ember</title>
<link rel="icon" href="{{.Static}}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{{.Static}}/style.css">
<script src="{{.Static}}/theme.js"></script>
<script type="module" src="{{.Static}}/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Main">
<a class="brand" href="/"><img src="{{.Static}}/favicon.svg" alt="" width="24" height="24"> Ember explorer</a>
<button type="button" id="menu-toggle" aria-expanded="false" aria-controls="main-menu">Menu</button>
<span id="main-menu" class="menu"><a href="/blocks">Blocks</a><a href="/txs">Transactions</a><a href="/tokens">Tokens</a><a href="/verified-contracts">Contracts</a><a href="/validators">Validators</a><a href="/proposals">Governance</a><a href="/gas-tracker">Gas</a></span>
</nav>
<form class="search" role="search" action="/search-results" method="get"><input type="search" name="q" aria-label="Search by block, transaction, address or name" placeholder="Block, transaction, address (0x…, ember1…, embervaloper1…), token or contract name"></form>
<button type="button" id="theme-toggle" aria-label="Switch between light and dark theme">◐</button>
</header>
<main id="main" tabindex="-1"><p class="loading" role="status">Loading…</p>
<noscript><p>The explorer's pages need JavaScript; the JSON API is at <a href="/api/v2/stats">/api/v2</a>.</p></noscript>
</main>
<footer><a href="/api/v2/stats">API</a> · Ember explorer</footer>
</body>
</html>
`))

// renderShell writes the page's HTML shell. The shell never caches: its
// asset URLs change with each binary.
func renderShell(w http.ResponseWriter, status int, p page, prefix string) {
	var buf bytes.Buffer
	if err := shell.Execute(&buf, struct {
		Page           page
		Prefix, Static string
	}{p, prefix, "/static/" + assets.hash}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	// Scripts only from here; connect-src stays open: read methods call
	// the node's JSON-RPC, which may live on another host or port.
	h.Set("Content-Security-Policy", "default-src 'self'; img-src * data:; connect-src *; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
