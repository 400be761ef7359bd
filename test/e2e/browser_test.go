package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser is one headless Chromium (Debian's chromium package, installed
// by scripts/chromium-test.sh when absent) driven over the DevTools
// protocol with chromedp. It records every console error, uncaught
// exception and error log entry of its pages.
type browser struct {
	t      *testing.T
	ctx    context.Context
	shots  string // directory the screenshots go to
	mu     sync.Mutex
	errors []string
}

// chromiumPath runs the install script; a browser that cannot be had fails
// the test with the script's reason (as PostgreSQL does): the pages are
// not optional, so their test is never skipped silently.
func chromiumPath(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "chromium-test.sh")
	var stderr strings.Builder
	cmd := exec.Command("bash", script, "path")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("headless Chromium: %s path: %v\n%s", script, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out))
}

// startBrowser starts Chromium with a fresh profile. Screenshots go to
// $EMBER_ARTIFACTS/web when set, else to a kept temp directory (logged).
func startBrowser(t *testing.T) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	// The first Run starts the browser; it must not carry a deadline.
	if _, err := chromedp.Run(ctx, chromedp.Title()); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.record(m)
		}
	}()
	b.shots = os.Getenv("EMBER_ARTIFACTS")
	if b.shots != "" {
		b.shots = filepath.Join(b.shots, "web")
	} else {
		d, err := os.MkdirTemp("", "ember-web-shots-")
		if err != nil {
			t.Fatal(err)
		}
		b.shots = d
	}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", b.shots)
	return b
}

// record keeps console errors, uncaught exceptions and error entries of
// the browser log (a failed request, a blocked resource).
func (b *browser) record(m chromedp.ConsoleMessage) {
	if m.Type != chromedp.ConsoleError && !m.IsException() {
		return
	}
	msg := m.String()
	if m.URL != "" {
		msg += " (" + m.URL + ")"
	}
	b.mu.Lock()
	b.errors = append(b.errors, msg)
	b.mu.Unlock()
}

// takeErrors returns and clears the errors recorded so far.
func (b *browser) takeErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.errors
	b.errors = nil
	return out
}

// noErrors fails t with the console errors of the page just checked.
// allowed matches errors a step provokes on purpose (a 404 of the API on
// the not-found page).
func (b *browser) noErrors(t *testing.T, what string, allowed ...*regexp.Regexp) {
	t.Helper()
next:
	for _, e := range b.takeErrors() {
		for _, re := range allowed {
			if re.MatchString(e) {
				continue next
			}
		}
		t.Errorf("%s: browser console: %s", what, e)
	}
}

// run runs actions with a deadline (a page that never renders fails, it
// does not hang the suite).
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fail(t, what, err)
	}
}

// get runs one action with a value, with run's deadline.
func get[T any](t *testing.T, b *browser, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.fail(t, what, err)
	}
	return v
}

func (b *browser) fail(t *testing.T, what string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	t.Fatalf("%s: %v\nat %s, <main> is: %s\nconsole: %v", what, err, loc, html, b.takeErrors())
}

// open loads url and waits for the page's content to replace the
// "Loading…" placeholder.
func (b *browser) open(t *testing.T, url string) {
	t.Helper()
	b.run(t, "open "+url, chromedp.Navigate(url), chromedp.WaitNotPresent(chromedp.CSS("main > p.loading")))
}

// text reads the text of the first element matching sel, waiting for it.
func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	return strings.TrimSpace(get(t, b, "read "+sel, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible)))
}

// expect requires the text of sel to equal want.
func (b *browser) expect(t *testing.T, sel, want string) {
	t.Helper()
	if got := b.text(t, sel); got != want {
		t.Errorf("%s = %q, want %q", sel, got, want)
	}
}

// attrs reads attribute name of every element matching sel (waiting for
// the first).
func (b *browser) attrs(t *testing.T, sel, name string) []string {
	t.Helper()
	b.run(t, "wait for "+sel, chromedp.WaitReady(chromedp.CSS(sel)))
	return get(t, b, "attrs "+sel, chromedp.Evaluate[[]string](fmt.Sprintf(`[...document.querySelectorAll(%q)].map(e => e.getAttribute(%q))`, sel, name)))
}

// shot writes a full-page screenshot as name.png.
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	png := get(t, b, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
