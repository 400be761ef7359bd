package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// pageCalls are the requests one page makes: its HTML shell, then the API
// calls its module makes before the page is drawn (explorer/web/static/
// pages/*.js; the first tab's list included).
type pageCalls struct {
	name  string
	calls func() []string
}

func pageWorkloads(c *client, src *synthSource, rng *rand.Rand, head uint64) []pageCalls {
	block := func() string { return fmt.Sprint(rng.Int63n(int64(head)) + 1) }
	tx := func() string { return src.txHashes[rng.Intn(len(src.txHashes))].Hex() }
	// A Zipf-drawn account the chain used: the page of one it never used
	// reads only the search and the node's balance.
	addr := func() string {
		for {
			a := src.account().Hex()
			if v, err := c.get("/api/v2/search?q=" + a); err == nil {
				if items, _ := v["items"].([]any); len(items) > 0 {
					return a
				}
			}
		}
	}
	return []pageCalls{
		{"home /", func() []string {
			return []string{"/", "/api/v2/stats", "/api/v2/stats/charts/transactions", "/api/v2/main-page/blocks", "/api/v2/main-page/transactions"}
		}},
		{"block /block/{n}", func() []string {
			n := block()
			return []string{"/block/" + n, "/api/v2/blocks/" + n, "/api/v2/main-page/blocks", "/api/v2/blocks/" + n + "/transactions"}
		}},
		{"tx /tx/{hash}", func() []string {
			h := tx()
			return []string{"/tx/" + h, "/api/v2/transactions/" + h, "/api/v2/transactions/" + h + "/summary", "/api/v2/transactions/" + h + "/logs"}
		}},
		{"address /address/{hash} (Zipf)", func() []string {
			a := addr()
			return []string{"/address/" + a, "/api/v2/search?q=" + url.QueryEscape(a), "/api/v2/addresses/" + a,
				"/api/v2/addresses/" + a + "/counters", "/api/v2/addresses/" + a + "/transactions"}
		}},
		{"lists /blocks /txs /tokens", func() []string {
			return []string{"/blocks", "/api/v2/blocks", "/txs", "/api/v2/transactions", "/tokens", "/api/v2/tokens"}
		}},
	}
}

// measurePages times each page's requests (shell and API calls, each
// request one sample, sequential on one keep-alive client) and, in headless
// Chromium, DOMContentLoaded and the time until the page is drawn for the
// home, tx and address pages.
func measurePages(c *client, src *synthSource, rng *rand.Rand, head uint64, requests, loads int) error {
	fmt.Printf("\n%-44s %9s %9s %9s %9s %9s %9s   %s\n", "page: its HTML and API calls", "requests", "p50 ms", "p99 ms", "max ms",
		"KB plain", "KB gzip", "slowest call at p99")
	raw := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true}}
	for _, p := range pageWorkloads(c, src, rng, head) {
		plain, gz, err := pageWeight(raw, c.base, p, weightDraws)
		if err != nil {
			return err
		}
		var all []time.Duration
		byCall := map[string][]time.Duration{}
		for len(all) < requests {
			for _, path := range p.calls() {
				t0 := time.Now()
				if _, err := c.getRaw(path); err != nil {
					return err
				}
				d := time.Since(t0)
				all = append(all, d)
				key := callKey(path)
				byCall[key] = append(byCall[key], d)
			}
		}
		sortDur(all)
		worst, worstP99 := "", time.Duration(0)
		for k, v := range byCall {
			sortDur(v)
			if d := pct(v, 99); d > worstP99 {
				worst, worstP99 = k, d
			}
		}
		fmt.Printf("%-44s %9d %9.2f %9.2f %9.2f %9.1f %9.1f   %s %.2f\n", p.name, len(all), ms(pct(all, 50)), ms(pct(all, 99)), ms(all[len(all)-1]),
			plain/1024, gz/1024, worst, ms(worstP99))
	}
	if loads <= 0 {
		return nil
	}
	return measureBrowser(c.base, src, rng, loads)
}

// weightDraws is how many draws of a page's calls (a random block, tx or
// account each) its weight is averaged over.
const weightDraws = 20

// pageWeight is the mean bytes a page's HTML and API calls put on the wire
// (bodies as sent, headers left out), without Accept-Encoding and with
// Accept-Encoding: gzip, over draws draws of its calls. Each gzip answer
// is checked to decompress to the plain one's length, so a broken
// encoding cannot pass for a small page. The static assets are not
// counted: their URLs are immutable, so a browser fetches them once.
func pageWeight(raw *http.Client, base string, p pageCalls, draws int) (plain, gz float64, err error) {
	var sumPlain, sumGzip int
	for i := 0; i < draws; i++ {
		for _, path := range p.calls() {
			a, err := wireBytes(raw, base+path, "")
			if err != nil {
				return 0, 0, err
			}
			b, err := wireBytes(raw, base+path, "gzip")
			if err != nil {
				return 0, 0, err
			}
			sumPlain += len(a)
			sumGzip += len(b)
		}
	}
	return float64(sumPlain) / float64(draws), float64(sumGzip) / float64(draws), nil
}

// wireBytes GETs url with the given Accept-Encoding ("" sends none) and
// returns the body as sent; a gzip body is checked to be valid gzip.
func wireBytes(raw *http.Client, url, acceptEncoding string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	resp, err := raw.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			_, err = io.Copy(io.Discard, z)
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s: bad gzip body: %v", url, err)
		}
	}
	return body, nil
}

// callKey is a request path with its ids replaced, for the table.
func callKey(path string) string {
	p, _, _ := strings.Cut(path, "?")
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, "0x") || (s != "" && strings.Trim(s, "0123456789") == "") {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

func sortDur(d []time.Duration) { sort.Slice(d, func(i, j int) bool { return d[i] < d[j] }) }

// measureBrowser loads pages in headless Chromium (installed by
// scripts/chromium-test.sh when absent) with a fresh profile.
func measureBrowser(base string, src *synthSource, rng *rand.Rand, loads int) error {
	_, file, _, _ := runtime.Caller(0)
	out, err := exec.Command("bash", filepath.Join(filepath.Dir(file), "..", "..", "scripts", "chromium-test.sh"), "path").Output()
	if err != nil {
		return fmt.Errorf("headless Chromium: %v", err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(strings.TrimSpace(string(out))), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Title()); err != nil {
		return fmt.Errorf("start Chromium: %v", err)
	}
	fmt.Printf("\n%-44s %9s %12s %12s %12s\n", "headless Chromium (cache warm after load 1)", "loads", "DCL p50 ms", "DCL max ms", "drawn p50 ms")
	for _, p := range []struct {
		name string
		url  func() string
	}{
		{"home /", func() string { return "/" }},
		{"tx /tx/{hash}", func() string { return "/tx/" + src.txHashes[rng.Intn(len(src.txHashes))].Hex() }},
		{"address /address/{hash} (Zipf)", func() string { return "/address/" + usedAccount(base, src) }},
	} {
		var dcl, drawn []time.Duration
		for i := 0; i < loads; i++ {
			tctx, tcancel := context.WithTimeout(ctx, time.Minute)
			err := chromedp.Do(tctx, chromedp.Navigate(base+p.url()), chromedp.WaitNotPresent(chromedp.CSS("main > p.loading")))
			var t []float64
			if err == nil {
				t, err = chromedp.Run(tctx, chromedp.Evaluate[[]float64](
					`[performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd, performance.now()]`))
			}
			tcancel()
			if err != nil {
				return fmt.Errorf("load %s: %v", p.name, err)
			}
			dcl = append(dcl, time.Duration(t[0]*float64(time.Millisecond)))
			drawn = append(drawn, time.Duration(t[1]*float64(time.Millisecond)))
		}
		sortDur(dcl)
		sortDur(drawn)
		fmt.Printf("%-44s %9d %12.1f %12.1f %12.1f\n", p.name, loads, ms(pct(dcl, 50)), ms(dcl[len(dcl)-1]), ms(pct(drawn, 50)))
	}
	return nil
}

// usedAccount draws Zipf accounts until one the index knows.
func usedAccount(base string, src *synthSource) string {
	c := &client{base: base, http: http.DefaultClient}
	for {
		a := src.account().Hex()
		if v, err := c.get("/api/v2/search?q=" + a); err == nil {
			if items, _ := v["items"].([]any); len(items) > 0 {
				return a
			}
		}
	}
}
