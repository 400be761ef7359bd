package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"gzip, deflate, br, zstd", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"*", true},
		{"*;q=0", false},
		{"*, gzip;q=0", false},
		{"identity", false},
		{"br", false},
		{"deflate", false},
		{"gzip;q=bad", false},
	} {
		if got := AcceptsGzip(c.header); got != c.want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func serve(h http.Handler, method, ae string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/x", nil)
	if ae != "" {
		r.Header.Set("Accept-Encoding", ae)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestCompress(t *testing.T) {
	big := []byte(`{"items":[` + strings.Repeat(`{"hash":"0x00","value":"1000"},`, 100) + `{}]}`)
	small := []byte(`{"healthy":true}`)
	jsonHandler := func(body []byte, etag string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			if etag != "" {
				w.Header().Set("ETag", etag)
			}
			w.WriteHeader(http.StatusOK)
			w.Write(body[:10])
			w.Write(body[10:])
		})
	}

	t.Run("large JSON", func(t *testing.T) {
		h := Compress(jsonHandler(big, `"v1"`))
		w := serve(h, http.MethodGet, "gzip")
		if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("headers %v", w.Header())
		}
		if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(w.Body.Len()) || w.Body.Len() >= len(big) {
			t.Errorf("Content-Length %s, body %d, plain %d", cl, w.Body.Len(), len(big))
		}
		if got := gunzip(t, w.Body.Bytes()); !bytes.Equal(got, big) {
			t.Errorf("gunzipped %q", got)
		}
		if e := w.Header().Get("ETag"); e != `W/"v1"` {
			t.Errorf("ETag %q, want W/\"v1\"", e)
		}
		p := serve(h, http.MethodGet, "")
		if p.Header().Get("Content-Encoding") != "" || !bytes.Equal(p.Body.Bytes(), big) || p.Header().Get("Vary") != "Accept-Encoding" ||
			p.Header().Get("Content-Length") != strconv.Itoa(len(big)) || p.Header().Get("ETag") != `"v1"` {
			t.Errorf("plain: %v, %d bytes", p.Header(), p.Body.Len())
		}
	})

	t.Run("small JSON", func(t *testing.T) {
		w := serve(Compress(jsonHandler(small, "")), http.MethodGet, "gzip")
		if w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), small) || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%v %q", w.Header(), w.Body.Bytes())
		}
	})

	t.Run("not text", func(t *testing.T) {
		png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 1000)
		h := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		}))
		w := serve(h, http.MethodGet, "gzip")
		if w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), png) || w.Header().Get("Vary") != "" {
			t.Errorf("%v, %d bytes", w.Header(), w.Body.Len())
		}
	})

	t.Run("flushed stream", func(t *testing.T) {
		h := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write(big[:500])
			w.(http.Flusher).Flush()
			w.Write(big[500:])
		}))
		w := serve(h, http.MethodGet, "gzip")
		if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Length") != "" {
			t.Fatalf("%v", w.Header())
		}
		if got := gunzip(t, w.Body.Bytes()); !bytes.Equal(got, big) {
			t.Errorf("gunzipped %d bytes, want %d", len(got), len(big))
		}
		p := serve(h, http.MethodGet, "")
		if !bytes.Equal(p.Body.Bytes(), big) || p.Header().Get("Content-Encoding") != "" {
			t.Errorf("plain stream: %v, %d bytes", p.Header(), p.Body.Len())
		}
	})

	t.Run("HEAD and 304 untouched", func(t *testing.T) {
		h := Compress(jsonHandler(big, ""))
		w := serve(h, http.MethodHead, "gzip")
		if w.Header().Get("Content-Encoding") != "" {
			t.Errorf("HEAD: %v", w.Header())
		}
		nm := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/css")
			w.WriteHeader(http.StatusNotModified)
		}))
		w = serve(nm, http.MethodGet, "gzip")
		if w.Code != http.StatusNotModified || w.Header().Get("Content-Encoding") != "" || w.Body.Len() != 0 {
			t.Errorf("304: %d %v", w.Code, w.Header())
		}
	})
}

// TestAssetsGzip: every compressible asset over MinCompressSize is served
// gzipped to a client that asks, decompressing to the embedded bytes, and
// plain to one that does not.
func TestAssetsGzip(t *testing.T) {
	h := Compress(Handler("ember"))
	for name, a := range assets.files {
		url := "/static/" + assets.hash + "/" + name
		r := httptest.NewRequest(http.MethodGet, url, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d", name, w.Code)
		}
		wantGzip := compressible(assetType(name)) && len(a.raw) >= MinCompressSize
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != wantGzip {
			t.Errorf("%s (%d bytes): gzipped %v, want %v", name, len(a.raw), got, wantGzip)
		}
		body := w.Body.Bytes()
		if wantGzip {
			if w.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Errorf("%s: Content-Length %s, %d bytes", name, w.Header().Get("Content-Length"), len(body))
			}
			body = gunzip(t, body)
		}
		if !bytes.Equal(body, a.raw) {
			t.Errorf("%s: body differs from the embedded file", name)
		}
		r = httptest.NewRequest(http.MethodGet, url, nil)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), a.raw) {
			t.Errorf("%s plain: %v", name, w.Header())
		}
	}
}

// TestCompressPanic: a handler that panics mid-body sends nothing; the
// panic reaches the server (which drops the connection).
func TestCompressPanic(t *testing.T) {
	h := Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[`))
		panic(http.ErrAbortHandler)
	}))
	w := httptest.NewRecorder()
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v", p)
			}
		}()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
	}()
	if w.Body.Len() != 0 || w.Header().Get("Content-Length") != "" {
		t.Errorf("sent %q, %v", w.Body.Bytes(), w.Header())
	}
}
