package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// MinCompressSize is the body size below which a response goes out as is:
// under about a kilobyte the gzip header and the CPU cost more than the
// bytes saved.
const MinCompressSize = 1024

// maxBuffered bounds the body Compress holds to learn its size; a larger
// one is streamed through gzip without a Content-Length.
const maxBuffered = 8 << 20

// Compress gzips the responses of h for clients whose Accept-Encoding
// allows gzip: the JSON API and the page shells, compressed per response,
// and the static assets, which serveAsset answers already compressed (it
// sets Content-Encoding, so they pass through untouched here). Every
// compressible response says Vary: Accept-Encoding, compressed or not, so
// a shared cache keeps the two apart. A client that does not ask for gzip
// gets the handler's bytes unchanged.
func Compress(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			// A HEAD answer has no body to measure (http.ServeContent
			// writes none), so it goes out as the handler made it.
			addVary(w.Header())
			h.ServeHTTP(w, r)
			return
		}
		cw := &compressWriter{w: w, gzip: AcceptsGzip(r.Header.Get("Accept-Encoding"))}
		h.ServeHTTP(cw, r)
		// Not deferred: a handler that panics must not have its half
		// body sent as a complete answer.
		cw.finish()
	})
}

// AcceptsGzip reports whether an Accept-Encoding value allows gzip: gzip
// (or x-gzip) listed with a non-zero q, or * with a non-zero q and gzip not
// refused by name.
func AcceptsGzip(header string) bool {
	star, named := false, false
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		ok := qNonZero(params)
		switch coding {
		case "gzip", "x-gzip":
			if !ok {
				return false
			}
			named = true
		case "*":
			star = ok
		}
	}
	return named || star
}

// qNonZero parses ";q=…" parameters: false only for a q of zero.
func qNonZero(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, found := strings.Cut(strings.TrimSpace(p), "=")
		if !found || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q > 0
	}
	return true
}

// compressible reports whether a Content-Type is text worth gzipping (the
// JSON API, HTML, CSS, JavaScript, SVG).
func compressible(ct string) bool {
	ct, _, _ = strings.Cut(ct, ";")
	ct = strings.ToLower(strings.TrimSpace(ct))
	return strings.HasPrefix(ct, "text/") || ct == "application/json" || ct == "application/javascript" ||
		ct == "image/svg+xml" || strings.HasSuffix(ct, "+json")
}

var gzipWriters = sync.Pool{New: func() any {
	z, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression)
	return z
}}

// compressWriter holds the body until it knows whether to compress it:
// the whole body when it fits maxBuffered, so the compressed answer has a
// Content-Length; a larger one is streamed.
type compressWriter struct {
	w      http.ResponseWriter
	gzip   bool // the client accepts it
	status int
	buf    bytes.Buffer
	// decided: headers are out; passthrough writes go to w as they come,
	// zw (when not nil) compresses a streamed body into w.
	decided     bool
	passthrough bool
	zw          *gzip.Writer
}

func (c *compressWriter) Header() http.Header { return c.w.Header() }

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *compressWriter) Unwrap() http.ResponseWriter { return c.w }

func (c *compressWriter) WriteHeader(status int) {
	if c.status != 0 || c.decided {
		return
	}
	if status >= 100 && status < 200 {
		c.w.WriteHeader(status) // informational: not the final answer
		return
	}
	c.status = status
	h := c.w.Header()
	if !c.eligible(status, h) {
		if compressible(h.Get("Content-Type")) && h.Get("Content-Encoding") == "" {
			addVary(h)
		}
		c.decided, c.passthrough = true, true
		c.w.WriteHeader(status)
	}
}

// eligible: the response may be compressed — a body-carrying status that
// is not a range, compressible text, not already encoded.
func (c *compressWriter) eligible(status int, h http.Header) bool {
	switch status {
	case http.StatusNoContent, http.StatusPartialContent, http.StatusNotModified:
		return false
	}
	return h.Get("Content-Encoding") == "" && h.Get("Content-Range") == "" && compressible(h.Get("Content-Type"))
}

func (c *compressWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		if c.w.Header().Get("Content-Type") == "" {
			c.w.Header().Set("Content-Type", http.DetectContentType(p))
		}
		c.WriteHeader(http.StatusOK)
	}
	if c.passthrough {
		return c.w.Write(p)
	}
	if c.zw != nil {
		return c.zw.Write(p)
	}
	c.buf.Write(p)
	if c.buf.Len() > maxBuffered {
		c.stream()
	}
	return len(p), nil
}

// Flush sends what is held so far: a handler that flushes wants its bytes
// out now, so the body from here on is streamed.
func (c *compressWriter) Flush() {
	if !c.decided {
		c.stream()
	}
	if c.zw != nil {
		_ = c.zw.Flush()
	}
	if f, ok := c.w.(http.Flusher); ok {
		f.Flush()
	}
}

// stream commits to a body without a known length: gzip when the client
// accepts it, the held bytes first.
func (c *compressWriter) stream() {
	h := c.w.Header()
	addVary(h)
	h.Del("Content-Length")
	c.decided = true
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if !c.gzip {
		c.passthrough = true
		c.w.WriteHeader(c.status)
		_, _ = c.w.Write(c.buf.Bytes())
		c.buf.Reset()
		return
	}
	h.Set("Content-Encoding", "gzip")
	weakenETag(h)
	c.w.WriteHeader(c.status)
	c.zw = gzipWriters.Get().(*gzip.Writer)
	c.zw.Reset(c.w)
	_, _ = c.zw.Write(c.buf.Bytes())
	c.buf.Reset()
}

// finish sends a held body: compressed when the client accepts gzip, the
// body is at least MinCompressSize and gzip makes it smaller.
func (c *compressWriter) finish() {
	if c.zw != nil {
		_ = c.zw.Close()
		gzipWriters.Put(c.zw)
		return
	}
	if c.decided {
		return
	}
	if c.status == 0 { // the handler wrote nothing
		if c.w.Header().Get("Content-Type") == "" {
			c.w.WriteHeader(http.StatusOK)
			return
		}
		c.status = http.StatusOK
		if !c.eligible(c.status, c.w.Header()) {
			c.w.WriteHeader(c.status)
			return
		}
	}
	h := c.w.Header()
	addVary(h)
	body := c.buf.Bytes()
	if c.gzip && len(body) >= MinCompressSize {
		if z := gzipBytes(body); len(z) < len(body) {
			body = z
			h.Set("Content-Encoding", "gzip")
			weakenETag(h)
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.w.WriteHeader(c.status)
	_, _ = c.w.Write(body)
}

// gzipBytes compresses b with a pooled writer.
func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	z := gzipWriters.Get().(*gzip.Writer)
	z.Reset(&out)
	_, _ = z.Write(b)
	_ = z.Close()
	gzipWriters.Put(z)
	return out.Bytes()
}

// weakenETag: a strong ETag names the identity bytes; the gzipped body is
// a different representation, so its validator may only be weak.
func weakenETag(h http.Header) {
	if e := h.Get("ETag"); e != "" && !strings.HasPrefix(e, "W/") {
		h.Set("ETag", "W/"+e)
	}
}

// addVary adds Accept-Encoding to Vary once.
func addVary(h http.Header) {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}
