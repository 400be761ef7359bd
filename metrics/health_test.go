package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHealthSeries scrapes the health series of a node that halted while
// catching up, then of a ready one: each reading comes from the source at
// scrape time.
func TestHealthSeries(t *testing.T) {
	var h atomic.Pointer[Health]
	h.Store(&Health{Halted: true, CatchingUp: true, HeadAge: 2500 * time.Millisecond, Behind: 7})
	m := New(Sources{Health: func() Health { return *h.Load() }})
	srv := httptest.NewServer(Handler(m))
	defer srv.Close()
	scrape := func() string {
		res, err := srv.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	check := func(body string, lines ...string) {
		t.Helper()
		for _, l := range lines {
			if !strings.Contains(body, "\n"+l+"\n") {
				t.Errorf("no line %q", l)
			}
		}
	}
	check(scrape(), "ember_ready 0", "ember_consensus_halted 1", "ember_catching_up 1", "ember_head_age_seconds 2.5", "ember_blocks_behind 7")
	h.Store(&Health{Ready: true, HeadAge: 400 * time.Millisecond})
	check(scrape(), "ember_ready 1", "ember_consensus_halted 0", "ember_catching_up 0", "ember_head_age_seconds 0.4", "ember_blocks_behind 0")
}
