// Command explorer measures Ember's explorer: how fast the indexer writes a
// large chain into the store, and the latency of the Blockscout API over it.
//
// The chain is synthetic (see synthSource): generating 1,000,000
// transactions through a node would take hours on a small machine and
// measure the node, not the explorer. The blocks go through the real
// indexer (indexer.Indexer: Convert, balance reads, Store.WriteBlocks in
// batches of 64) into the real store, and the API is the real handler on a
// real HTTP listener, so only the Source differs from a node's.
//
//	go run ./bench/explorer [-blocks 100000] [-txs 1000000] [-accounts 200000] [-db PATH|postgres://…]
//	    [-requests 1000] [-keep] [-pages=false] [-page-loads 20]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/api"
	"github.com/emberchain/ember/explorer/indexer"
	"github.com/emberchain/ember/explorer/service"
	"github.com/emberchain/ember/explorer/sqlstore"
)

func main() {
	var (
		blocks   = flag.Int("blocks", 100_000, "blocks to index (genesis included)")
		txs      = flag.Int("txs", 1_000_000, "transactions in those blocks")
		accounts = flag.Int("accounts", 0, "distinct accounts (default txs/5)")
		db       = flag.String("db", "", "SQLite file, or a postgres:// DSN (default: a new SQLite file in a temporary directory)")
		requests = flag.Int("requests", 1000, "measured requests per endpoint")
		keep     = flag.Bool("keep", false, "keep the temporary SQLite database")
		seed     = flag.Int64("seed", 1, "random seed of the synthetic chain")
		cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the indexing phase to this file")
		pages    = flag.Bool("pages", true, "also time the explorer's pages: each page's HTML and API calls, and loads in headless Chromium")
		loads    = flag.Int("page-loads", 20, "loads of each page in headless Chromium (0: none)")
	)
	flag.Parse()
	pagesOn, pageLoads = *pages, *loads
	cpuProfile = *cpuprof
	if *accounts == 0 {
		*accounts = max(*txs/5, 100)
	}
	if err := run(*blocks, *txs, *accounts, *db, *requests, *keep, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench-explorer:", err)
		os.Exit(1)
	}
}

func run(blocks, txs, accounts int, dsn string, requests int, keep bool, seed int64) error {
	if blocks < 2 || txs < 1 {
		return fmt.Errorf("need -blocks ≥ 2 and -txs ≥ 1")
	}
	if dsn == "" {
		dir, err := os.MkdirTemp("", "bench-explorer-")
		if err != nil {
			return err
		}
		if !keep {
			defer os.RemoveAll(dir)
		}
		dsn = filepath.Join(dir, "explorer.db")
	}
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, ok, err := st.IndexedHeight(ctx); err != nil || ok {
		return fmt.Errorf("database %s is not empty (%v): give a new one", dsn, err)
	}
	engine := "SQLite"
	if strings.HasPrefix(dsn, "postgres") {
		engine = "PostgreSQL"
	}
	fmt.Printf("Explorer benchmark: %d blocks, %d transactions, %d accounts, %s (%s)\n\n", blocks, txs, accounts, engine, redact(dsn))

	src := newSynthSource(blocks, txs, accounts, seed)
	ix := indexer.NewIndexer(src, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	stop, err := startProfile(cpuProfile)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := ix.CatchUp(ctx); err != nil {
		return err
	}
	total := time.Since(t0)
	stop()
	store := total - src.spent
	fmt.Printf("indexing   %d blocks, %d txs in %.1f s: %.0f blocks/s, %.0f txs/s\n", blocks, txs, total.Seconds(),
		float64(blocks)/total.Seconds(), float64(txs)/total.Seconds())
	fmt.Printf("           of which %.1f s making the chain up; indexer + store alone: %.0f blocks/s, %.0f txs/s\n\n",
		src.spent.Seconds(), float64(blocks)/store.Seconds(), float64(txs)/store.Seconds())
	if fi, err := os.Stat(dsn); err == nil {
		fmt.Printf("database   %.0f MB\n\n", float64(fi.Size())/1e6)
	}
	return measureAPI(st, ix, src, requests, seed)
}

// cpuProfile is the -cpuprofile file ("" = none).
var cpuProfile string

// startProfile profiles the CPU into path until the returned stop is
// called; with no path it does nothing.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// measureAPI serves the store on a loopback port and times each endpoint
// with one keep-alive client, as a front end's requests arrive.
func measureAPI(st explorer.Store, ix *indexer.Indexer, src *synthSource, requests int, seed int64) error {
	// service.Serve, as a node serves it: gzip for clients that ask
	// (Go's client does, and decompresses, as a browser does).
	srv, err := service.Serve("127.0.0.1:0", &api.Backend{Store: st, Status: ix.Status, Prefix: "ember"},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer srv.Stop()
	c := &client{base: "http://" + srv.Addr().String(), http: &http.Client{Timeout: time.Minute}}
	rng := rand.New(rand.NewSource(seed + 1))
	head := uint64(len(src.counts) - 1)
	fmt.Printf("%-44s %9s %9s %9s %9s\n", "endpoint", "requests", "p50 ms", "p99 ms", "max ms")
	for _, e := range workloads(src, rng, head) {
		for i := 0; i < requests/20; i++ { // warm the caches first
			if _, err := c.get(e.path()); err != nil {
				return err
			}
		}
		lat, err := c.measure(e, requests)
		if err != nil {
			return err
		}
		fmt.Printf("%-44s %9d %9.2f %9.2f %9.2f\n", e.name, len(lat), ms(pct(lat, 50)), ms(pct(lat, 99)), ms(lat[len(lat)-1]))
	}
	if !pagesOn {
		return nil
	}
	return measurePages(c, src, rng, head, requests, pageLoads) // pages.go
}

// pagesOn and pageLoads are -pages and -page-loads.
var (
	pagesOn   bool
	pageLoads int
)

// workload is one row of the table: a stream of request paths.
type workload struct {
	name  string
	path  func() string
	pages int // follow next_page_params this many times per request (0: first page only)
}

func workloads(src *synthSource, rng *rand.Rand, head uint64) []workload {
	hot := func() string { return src.accounts[rng.Intn(10)].Hex() } // the busiest accounts
	zipfAddr := func() string { return src.account().Hex() }         // Zipf: mostly busy, some of the tail
	search := func() string {
		switch rng.Intn(4) {
		case 0:
			return fmt.Sprint(rng.Int63n(int64(head) + 1))
		case 1:
			return src.blockHashes[rng.Intn(len(src.blockHashes))].Hex()
		case 2:
			return src.txHashes[rng.Intn(len(src.txHashes))].Hex()
		}
		return strings.ToLower(zipfAddr())
	}
	return []workload{
		{name: "/addresses/{hash}/transactions (Zipf)", path: func() string { return "/api/v2/addresses/" + zipfAddr() + "/transactions" }},
		{name: "/addresses/{hash}/transactions (hot)", path: func() string { return "/api/v2/addresses/" + hot() + "/transactions" }},
		{name: "/addresses/{hash}/transactions pages 2-5", pages: 4, path: func() string { return "/api/v2/addresses/" + hot() + "/transactions" }},
		{name: "/transactions", path: func() string { return "/api/v2/transactions" }},
		{name: "/transactions (random depth)", path: func() string {
			return fmt.Sprintf("/api/v2/transactions?filter=validated&block_number=%d&index=0&items_count=50", rng.Int63n(int64(head))+1)
		}},
		{name: "/search", path: func() string { return "/api/v2/search?q=" + url.QueryEscape(search()) }},
	}
}

type client struct {
	base string
	http *http.Client
}

func (c *client) get(path string) (map[string]any, error) {
	body, err := c.getRaw(path)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	_ = json.Unmarshal(body, &v) // search and lists are objects; main-page arrays are not measured
	return v, nil
}

// getRaw GETs path and requires 200.
func (c *client) getRaw(path string) ([]byte, error) {
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return body, nil
}

// measure times requests of e (each page fetched counts as one request)
// and returns the latencies sorted.
func (c *client) measure(e workload, requests int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, requests)
	for len(lat) < requests {
		path := e.path()
		base := path
		for page := 0; page <= e.pages && len(lat) < requests; page++ {
			t0 := time.Now()
			v, err := c.get(path)
			if err != nil {
				return nil, err
			}
			if page > 0 || e.pages == 0 {
				lat = append(lat, time.Since(t0))
			}
			next, _ := v["next_page_params"].(map[string]any)
			if next == nil {
				break
			}
			path = withParams(base, next)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat, nil
}

func withParams(path string, params map[string]any) string {
	u, _ := url.Parse(path)
	q := u.Query()
	for k, v := range params {
		if s, ok := v.(string); ok {
			q.Set(k, s)
		} else {
			b, _ := json.Marshal(v)
			q.Set(k, string(b))
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return dsn
}
