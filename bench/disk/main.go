// Command disk measures how the node's database grows with the chain in
// archive and in full pruning mode: it sends plain transfers from -senders
// accounts to a fixed set of -recipients addresses (so the live state stays
// the same size: what grows is history), and at each mark stops the node,
// measures its database and starts it again.
//
//	go run ./bench/disk -emberd build/emberd [-txs 1000000] [-marks 100000,500000,1000000] [-modes archive,full]
//
// Columns: the state trie nodes on disk (count and bytes of keys and
// values, counted by opening the stopped node's store: the part pruning
// bounds), the size on disk of Ember's store (data/ember) and of the
// whole data directory (with CometBFT's block store and indexes).
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/bench/internal/writes"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/store"
)

type options struct {
	emberd              string
	txs                 int
	marks               []int
	senders, recipients int
	perRound            int // transfers each sender has in flight per round
	keepRecent, every   uint64
}

// row is one measurement.
type row struct {
	mode                 string
	txs                  int
	head                 uint64
	stateNodes           int
	stateBytes           int64
	storeBytes, allBytes int64
	elapsed              time.Duration
}

func main() {
	var (
		o     options
		marks = flag.String("marks", "100000,500000,1000000", "transfer counts at which to measure")
		modes = flag.String("modes", "archive,full", "pruning modes to run, in order")
	)
	flag.StringVar(&o.emberd, "emberd", "build/emberd", "emberd binary")
	flag.IntVar(&o.txs, "txs", 1_000_000, "transfers to send in each mode")
	flag.IntVar(&o.senders, "senders", 50, "sending accounts")
	flag.IntVar(&o.recipients, "recipients", 1000, "recipient addresses, reused round after round")
	flag.IntVar(&o.perRound, "per-round", 100, "transfers each sender sends before waiting for its last one")
	flag.Uint64Var(&o.keepRecent, "keep-recent", 1000, "full mode: [store] keep-recent")
	flag.Uint64Var(&o.every, "prune-interval", 500, "full mode: [store] prune-interval")
	flag.Parse()
	for _, m := range strings.Split(*marks, ",") {
		n, err := strconv.Atoi(m)
		if err != nil || n <= 0 {
			fatalf("bad mark %q", m)
		}
		if n <= o.txs {
			o.marks = append(o.marks, n)
		}
	}
	var rows []row
	for _, mode := range strings.Split(*modes, ",") {
		r, err := run(o, store.Pruning(mode))
		if err != nil {
			fatalf("%s: %v", mode, err)
		}
		rows = append(rows, r...)
	}
	print(o, rows)
}

// run fills one node in the given mode, measuring at each mark.
func run(o options, mode store.Pruning) ([]row, error) {
	n, err := peer.Ember(o.emberd, o.senders, func(home string) error {
		cfg, err := config.Load(home)
		if err != nil {
			return err
		}
		cfg.Store.Pruning, cfg.Store.KeepRecent, cfg.Store.PruneInterval = string(mode), o.keepRecent, o.every
		return config.Write(home, cfg)
	})
	if err != nil {
		return nil, err
	}
	home := n.Home()
	defer func() { n.Stop() }()
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, o.senders)
	if err != nil {
		return nil, err
	}
	nonces := make([]uint64, o.senders)
	start, sent := time.Now(), 0
	var rows []row
	for _, mark := range o.marks {
		for sent < mark {
			k, err := sendRound(n.URL, keys, nonces, o, sent)
			if err != nil {
				return rows, err
			}
			sent += k
		}
		elapsed := time.Since(start)
		head, err := headOf(n.URL)
		if err != nil {
			return rows, err
		}
		n.Terminate()
		r, err := measure(home)
		if err != nil {
			return rows, err
		}
		r.mode, r.txs, r.head, r.elapsed = string(mode), sent, head, elapsed
		fmt.Fprintf(os.Stderr, "%s: %d transfers, block %d, state %d nodes %s, store %s, data %s (%s)\n", mode, sent, head,
			r.stateNodes, mb(r.stateBytes), mb(r.storeBytes), mb(r.allBytes), elapsed.Round(time.Second))
		rows = append(rows, r)
		if n, err = peer.EmberStart("ember", o.emberd, home); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// sendRound sends each sender's next perRound transfers (never past
// o.txs in total) and waits until each sender's last one is included.
func sendRound(url string, keys []*accounts.Key, nonces []uint64, o options, sent int) (int, error) {
	c, err := writes.Dial(url)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	eth := ethclient.NewClient(c)
	ctx := context.Background()
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return 0, err
	}
	signer := types.LatestSignerForChainID(chainID)
	per := min(o.perRound, (o.txs-sent+o.senders-1)/o.senders)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		total int
	)
	for i, key := range keys {
		wg.Add(1)
		go func(i int, key *accounts.Key) {
			defer wg.Done()
			var last common.Hash
			for j := 0; j < per; j++ {
				to := recipient(int((nonces[i]*uint64(len(keys)) + uint64(i)) % uint64(o.recipients)))
				tx, err := types.SignNewTx(key.Private, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonces[i],
					GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
				if err == nil {
					err = eth.SendTransaction(ctx, tx)
				}
				if err != nil {
					mu.Lock()
					first = fmt.Errorf("sender %d nonce %d: %w", i, nonces[i], err)
					mu.Unlock()
					return
				}
				nonces[i]++
				last = tx.Hash()
			}
			if _, err := writes.WaitReceipt(ctx, eth, last, 2*time.Minute); err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
				return
			}
			mu.Lock()
			total += per
			mu.Unlock()
		}(i, key)
	}
	wg.Wait()
	return total, first
}

// recipient is the i-th of the fixed recipient addresses.
func recipient(i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte("disk-" + strconv.Itoa(i)))[:20])
}

func headOf(url string) (uint64, error) {
	c, err := ethclient.Dial(url)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.BlockNumber(context.Background())
}

// measure opens the stopped node's store and sizes its directories.
func measure(home string) (row, error) {
	dir := filepath.Join(home, "data", "ember")
	st, err := store.Open(dir, nil, store.Options{CacheMB: 16, TrieCacheMB: 16})
	if err != nil {
		return row{}, err
	}
	nodes, bytes, err := st.StateSize()
	st.Close()
	if err != nil {
		return row{}, err
	}
	return row{stateNodes: nodes, stateBytes: bytes, storeBytes: du(dir), allBytes: du(filepath.Join(home, "data"))}, nil
}

// du is the total size of the regular files under dir.
func du(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

func print(o options, rows []row) {
	fmt.Printf("\nETH transfers from %d senders to %d recipients; full mode keeps %d states, sweeps every %d blocks\n\n",
		o.senders, o.recipients, o.keepRecent, o.every)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "mode\ttransfers\tblocks\tstate nodes\tstate MB\tstore MB\tdata MB\tfill time\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.mode, r.txs, r.head, r.stateNodes, mb(r.stateBytes), mb(r.storeBytes), mb(r.allBytes), r.elapsed.Round(time.Second))
	}
	tw.Flush()
}

func mb(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
