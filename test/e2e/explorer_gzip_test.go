package e2e

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// rawGet GETs url with the given Accept-Encoding ("" sends none) and
// returns the response with its body as it came on the wire: the
// transport's own gzip handling is off.
func rawGet(t *testing.T, url, acceptEncoding string, extra ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp, body
}

func varyHasAcceptEncoding(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Accept-Encoding") {
				return true
			}
		}
	}
	return false
}

// checkGzipPair fetches url without and with Accept-Encoding: gzip and
// requires: the plain answer unencoded with its exact length; the gzip
// answer encoded, its Content-Length the compressed size, smaller than
// the plain body, and decompressing to the plain body byte for byte; both
// saying Vary: Accept-Encoding. It returns the plain body and the gzip
// answer's headers.
func checkGzipPair(t *testing.T, url string) ([]byte, http.Header) {
	t.Helper()
	plain, pbody := rawGet(t, url, "")
	if plain.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, plain.StatusCode, pbody)
	}
	if ce := plain.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("%s without Accept-Encoding: Content-Encoding %q", url, ce)
	}
	if cl := plain.Header.Get("Content-Length"); cl != strconv.Itoa(len(pbody)) {
		t.Errorf("%s plain: Content-Length %q, body %d bytes", url, cl, len(pbody))
	}
	zr, zbody := rawGet(t, url, "gzip, deflate, br")
	if zr.StatusCode != http.StatusOK {
		t.Fatalf("GET %s (gzip): %d", url, zr.StatusCode)
	}
	if ce := zr.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("%s with Accept-Encoding gzip: Content-Encoding %q", url, ce)
	}
	if cl := zr.Header.Get("Content-Length"); cl != strconv.Itoa(len(zbody)) {
		t.Errorf("%s gzip: Content-Length %q, compressed body %d bytes", url, cl, len(zbody))
	}
	if len(zbody) >= len(pbody) {
		t.Errorf("%s: gzip body %d bytes, plain %d", url, len(zbody), len(pbody))
	}
	if zr.Header.Get("Content-Type") != plain.Header.Get("Content-Type") {
		t.Errorf("%s: Content-Type %q gzipped, %q plain", url, zr.Header.Get("Content-Type"), plain.Header.Get("Content-Type"))
	}
	for _, r := range []*http.Response{plain, zr} {
		if !varyHasAcceptEncoding(r.Header) {
			t.Errorf("%s: Vary %q lacks Accept-Encoding", url, r.Header.Values("Vary"))
		}
	}
	gz, err := gzip.NewReader(bytes.NewReader(zbody))
	if err != nil {
		t.Fatalf("%s: not gzip: %v", url, err)
	}
	unz, err := io.ReadAll(gz)
	if err != nil {
		t.Fatalf("%s: gunzip: %v", url, err)
	}
	if !bytes.Equal(unz, pbody) {
		t.Errorf("%s: gunzipped body (%d bytes) differs from the plain one (%d bytes)", url, len(unz), len(pbody))
	}
	t.Logf("%s: %d bytes plain, %d gzipped", url, len(pbody), len(zbody))
	return pbody, zr.Header
}

// TestExplorerGzip checks the explorer's compression on a dev chain: an
// address's transaction list (JSON API), the address page's HTML and a
// static asset, each fetched with and without Accept-Encoding: gzip; small
// answers and a refused gzip stay plain; the asset's ETag answers 304 per
// encoding; and Chromium, which asks for gzip itself, draws the page from
// compressed answers.
func TestExplorerGzip(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	sender := devKeys[3]
	recipient := common.BytesToAddress(crypto.Keccak256([]byte("explorer-gzip"))[:20])
	txs := n.explorerBatch(t, sender, recipient, 30)
	n.waitAll(t, txs)
	n.settledHead(t, nil) // no new block changes the answers between fetches
	base := "http://" + n.Explorer

	t.Run("api", func(t *testing.T) {
		body, _ := checkGzipPair(t, base+"/api/v2/addresses/"+sender.Address.Hex()+"/transactions")
		// The body is the list itself: every one of the 30 hashes.
		for _, tx := range txs {
			if !bytes.Contains(body, []byte(strings.ToLower(tx.Hash().Hex()))) {
				t.Errorf("tx list lacks %s", tx.Hash().Hex())
			}
		}
	})

	var assetURL string
	t.Run("page", func(t *testing.T) {
		body, _ := checkGzipPair(t, base+"/address/"+sender.Address.Hex())
		if !bytes.Contains(body, []byte(`<meta name="ember-page" content="address">`)) {
			t.Errorf("address page shell: %s", body)
		}
		m := regexp.MustCompile(`src="(/static/[0-9a-f]{12}/)app\.js"`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("no app.js in the shell: %s", body)
		}
		assetURL = base + string(m[1]) + "lib.js"
	})

	t.Run("static", func(t *testing.T) {
		if assetURL == "" {
			t.Skip("the page subtest found no asset URL")
		}
		body, zh := checkGzipPair(t, assetURL)
		_, file, _, _ := runtime.Caller(0)
		want, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "explorer", "web", "static", "lib.js"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, want) {
			t.Errorf("lib.js served %d bytes, the embedded file has %d", len(body), len(want))
		}
		plain, _ := rawGet(t, assetURL, "")
		pTag, zTag := plain.Header.Get("ETag"), zh.Get("ETag")
		if pTag == "" || zTag == "" || pTag == zTag {
			t.Fatalf("ETags plain %q, gzip %q: want two distinct ones", pTag, zTag)
		}
		if r, b := rawGet(t, assetURL, "gzip", "If-None-Match", zTag); r.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Errorf("gzip If-None-Match %s: %d, %d bytes", zTag, r.StatusCode, len(b))
		}
		if r, b := rawGet(t, assetURL, "", "If-None-Match", pTag); r.StatusCode != http.StatusNotModified || len(b) != 0 {
			t.Errorf("plain If-None-Match %s: %d, %d bytes", pTag, r.StatusCode, len(b))
		}
		// The plain ETag does not validate the gzipped bytes.
		if r, _ := rawGet(t, assetURL, "gzip", "If-None-Match", pTag); r.StatusCode != http.StatusOK {
			t.Errorf("gzip request with the plain ETag: %d, want 200", r.StatusCode)
		}
	})

	t.Run("plain when small or refused", func(t *testing.T) {
		// /api/health is a few dozen bytes: below the threshold.
		r, b := rawGet(t, base+"/api/health", "gzip")
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Encoding") != "" || len(b) >= 1024 {
			t.Errorf("/api/health with gzip: %d, Content-Encoding %q, %d bytes", r.StatusCode, r.Header.Get("Content-Encoding"), len(b))
		}
		url := base + "/api/v2/addresses/" + sender.Address.Hex() + "/transactions"
		_, want := rawGet(t, url, "")
		for _, ae := range []string{"gzip;q=0", "identity", "br"} {
			r, b := rawGet(t, url, ae)
			if ce := r.Header.Get("Content-Encoding"); ce != "" || !bytes.Equal(b, want) {
				t.Errorf("Accept-Encoding %q: Content-Encoding %q, %d bytes (plain %d)", ae, ce, len(b), len(want))
			}
		}
	})

	t.Run("chromium", func(t *testing.T) {
		br := startBrowser(t)
		br.open(t, base+"/address/"+sender.Address.Hex())
		nonce, err := n.Eth.NonceAt(ctx(t), sender.Address, nil)
		if err != nil {
			t.Fatal(err)
		}
		br.expect(t, `[data-field="address-hex"]`, sender.Address.Hex())
		br.expect(t, `[data-field="transactions-count"]`, grouped(nonce))
		// Resource Timing: a body that came compressed has an encoded
		// size below its decoded one.
		type entry struct {
			Name    string  `json:"name"`
			Encoded float64 `json:"encodedBodySize"`
			Decoded float64 `json:"decodedBodySize"`
		}
		entries := get(t, br, "resource timing", chromedp.Evaluate[[]entry](
			`[...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].map((e) => ({name: e.name, encodedBodySize: e.encodedBodySize, decodedBodySize: e.decodedBodySize}))`))
		seen := map[string]bool{}
		for _, e := range entries {
			for _, want := range []string{"/address/", "/lib.js", "/style.css", "/transactions"} {
				if strings.Contains(e.Name, want) && !seen[want] {
					seen[want] = true
					if e.Decoded < 1024 || e.Encoded >= e.Decoded {
						t.Errorf("%s: %v bytes on the wire for %v decoded; want it gzipped", e.Name, e.Encoded, e.Decoded)
					}
				}
			}
		}
		for _, want := range []string{"/address/", "/lib.js", "/style.css", "/transactions"} {
			if !seen[want] {
				t.Errorf("the page loaded no %s (entries: %v)", want, entries)
			}
		}
		br.noErrors(t, "address page")
	})
}
