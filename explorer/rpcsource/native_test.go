package rpcsource

import (
	"context"
	"strings"
	"testing"
)

// TestDialCometRefusesBadURLs: a --comet that is no URL, has another
// scheme or does not answer is refused at start with a message naming it.
func TestDialCometRefusesBadURLs(t *testing.T) {
	s := &Source{}
	for u, want := range map[string]string{
		"":                   "not a URL",
		"127.0.0.1:26657":    "not a URL",
		"ws://127.0.0.1:1":   `unsupported scheme "ws"`,
		"http://127.0.0.1:1": "does not answer CometBFT's /genesis",
	} {
		err := s.DialComet(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--comet %q: %v, want %q", u, err, want)
		}
	}
	if s.comet != nil {
		t.Fatal("a refused --comet was kept")
	}
}
