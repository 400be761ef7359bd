package httpserve

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStartServesUntilStop(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) })
	s, err := Start("test", "127.0.0.1:0", &http.Server{Handler: h}, time.Second, log)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + s.Addr().String() + "/x"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello /x" {
		t.Fatalf("body %q, want %q", body, "hello /x")
	}

	// The address is taken now: a second server on it fails, naming itself.
	if _, err := Start("second", s.Addr().String(), &http.Server{Handler: h}, time.Second, log); err == nil ||
		!strings.HasPrefix(err.Error(), "second listener on "+s.Addr().String()+": ") {
		t.Fatalf("second Start on a taken address: %v", err)
	}

	s.Stop()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Second}
	if resp, err := c.Get(url); err == nil {
		resp.Body.Close()
		t.Fatal("still serving after Stop")
	}
}
