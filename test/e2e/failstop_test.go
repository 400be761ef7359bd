package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/internal/wait"
)

// TestFailStopDiskFull runs four validators, validator 3's data directory
// on a 128 MiB tmpfs, and streams transfers to validator 0 and, in the
// "journal" case, to validator 3. Once the streams have some accepted,
// validator 3's file system is filled. The next write it needs fails: its
// transaction journal's in the "journal" case, CometBFT's (block store,
// state store or WAL) or Ember's store in the "consensus" case, where it
// takes no transaction and is probed with an underpriced one. From the
// moment it logs the failure (FAIL-STOP) every transaction sent to it is
// refused with an error naming the halt and the cause, within a second,
// never answered with a hash; GET /ready on its JSON-RPC port answers 503
// with halted true; CometBFT's /health stops answering within a second;
// and the process exits non-zero with an error naming "no space left on
// device". After the filler is deleted and the node started again it
// catches up with the others (the same blocks), the block it had last
// committed is still there, and every transaction any node accepted has a
// successful receipt. Parallel: it mounts its own file system.
func TestFailStopDiskFull(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it mounts a small tmpfs as a validator's data directory and fills it")
	}
	for _, journal := range []bool{true, false} {
		name := map[bool]string{true: "journal", false: "consensus"}[journal]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			failStopDiskFull(t, journal)
		})
	}
}

func failStopDiskFull(t *testing.T, viaJournal bool) {
	nw := InitNetwork(t, 4, 0)
	vals := nw.Nodes
	victim := vals[3]
	data := filepath.Join(victim.Home, "data")
	mountTmpfs(t, data, "128m")
	t.Cleanup(func() {
		victim.Stop() // before the unmount (this cleanup runs before the network's)
		if out, err := exec.Command("umount", "-l", data).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", data, err, out)
		}
	})
	for _, n := range vals {
		n.Start("start")
	}
	waitAllHeight(t, 2, vals...)
	if code, body := getStatus("http://" + victim.HTTP + "/ready"); code != http.StatusOK || !strings.Contains(body, `"ready":true`) {
		t.Fatalf("a healthy validator's /ready: %d %s", code, body)
	}
	if code, _ := getStatus("http://" + victim.CometRPC + "/health"); code != http.StatusOK {
		t.Fatalf("a healthy validator's CometBFT /health: %d", code)
	}

	chainID, err := vals[0].Eth.ChainID(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	streams := []*failStopStream{
		newFailStopStream(t, victim, devKeys[1].Private, chainID, !viaJournal),
		newFailStopStream(t, victim, devKeys[2].Private, chainID, !viaJournal),
		newFailStopStream(t, vals[0], devKeys[3].Private, chainID, false),
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range streams {
		wg.Add(1)
		go func() { defer wg.Done(); s.run(stop) }()
	}
	wait.Eventually(t, 60*time.Second, "40 transactions accepted", func() error {
		if n := streams[0].count() + streams[1].count() + streams[2].count(); n < 40 {
			return fmt.Errorf("%d accepted", n)
		}
		return nil
	})
	lastSeen, err := victim.Eth.HeaderByNumber(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	fillFS(t, filepath.Join(data, "filler"))

	// Refused at once, with the cause; /ready and /health fail.
	for _, s := range streams[:2] {
		s.waitRefused(t)
	}
	failedAt, cause := failStopLine(t, victim)
	if viaJournal != strings.Contains(cause, "transaction journal") {
		t.Errorf("halt cause %q: want the journal's write %v", cause, viaJournal)
	}
	for i, s := range streams[:2] {
		if s.refusedAt.Sub(failedAt) > time.Second {
			t.Errorf("stream %d: accepted until %v, %v after the failure", i, s.refusedAt, s.refusedAt.Sub(failedAt))
		}
		if !strings.Contains(s.refusal, "node halted, it accepts no transactions") || !strings.Contains(s.refusal, "no space left on device") {
			t.Errorf("stream %d: refusal %q names neither the halt nor the cause", i, s.refusal)
		}
		if s.readyCode != http.StatusServiceUnavailable || !strings.Contains(s.readyBody, `"halted":true`) || !strings.Contains(s.readyBody, "no space left on device") {
			t.Errorf("stream %d: /ready after the halt: %d %s", i, s.readyCode, s.readyBody)
		}
		if s.healthDown.IsZero() || s.healthDown.Sub(failedAt) > time.Second {
			t.Errorf("stream %d: CometBFT /health still answered 200 a second after the halt (down at %v, /ready answered at %v)",
				i, s.healthDown.Sub(failedAt), s.readyAt.Sub(failedAt))
		}
	}
	exitCode, exitMsg := waitExit(t, victim, 30*time.Second)
	if exitCode == 0 || !strings.Contains(exitMsg, "Error: node halted") || !strings.Contains(exitMsg, "no space left on device") {
		t.Fatalf("exit code %d, last words %q: want non-zero, naming the halt and the cause", exitCode, exitMsg)
	}
	t.Logf("halt logged at %v (%s); first refusals %v and %v after it, /health down %v after it; exit code %d",
		failedAt.Format(time.StampMilli), cause, streams[0].refusedAt.Sub(failedAt), streams[1].refusedAt.Sub(failedAt),
		streams[0].healthDown.Sub(failedAt), exitCode)

	// Space freed: it restarts and catches up with nothing lost.
	if err := os.Remove(filepath.Join(data, "filler")); err != nil {
		t.Fatal(err)
	}
	victim.Start("start")
	close(stop)
	wg.Wait()
	up := vals[:3]
	waitAllHeightWithin(t, maxHeight(t, up...)+2, 90*time.Second, victim)
	if h, err := victim.Eth.HeaderByNumber(ctx(t), lastSeen.Number); err != nil || h.Hash() != lastSeen.Hash() {
		t.Fatalf("block %d after the restart: %v %v, want %s", lastSeen.Number, h, err, lastSeen.Hash())
	}
	accepted := 0
	for _, s := range streams {
		for _, hash := range s.hashes() {
			for _, n := range []*Node{vals[0], victim} {
				if r := n.WaitReceipt(t, hash); r.Status != types.ReceiptStatusSuccessful {
					t.Errorf("%s: status %d", hash, r.Status)
				}
			}
			accepted++
		}
	}
	head := maxHeight(t, vals...)
	waitAllHeight(t, head, vals...)
	sameChain(t, head, vals...)
	t.Logf("%d accepted transactions (%d by validator 3) all included; validator 3 at %d again", accepted,
		streams[0].count()+streams[1].count(), head)
}

// mountTmpfs puts a tmpfs of size over dir with dir's content, or skips
// the test when the machine does not let it mount.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	orig := dir + ".orig"
	if err := os.Rename(dir, orig); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s): the test fills a small file system", err, out)
	}
	if out, err := exec.Command("cp", "-a", orig+"/.", dir).CombinedOutput(); err != nil {
		exec.Command("umount", "-l", dir).Run()
		t.Fatalf("copy the data directory: %v: %s", err, out)
	}
}

// fillFS writes path until the file system has no room left.
func fillFS(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
}

// failStopLine is when the node logged its halt, and the cause it gave.
func failStopLine(t *testing.T, n *Node) (time.Time, string) {
	t.Helper()
	log, err := os.ReadFile(n.logPath)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`time=(\S+) level=ERROR msg="FAIL-STOP[^"]*" cause="((?:[^"\\]|\\.)*)"`).FindSubmatch(log)
	if m == nil {
		t.Fatal("no FAIL-STOP line in the log")
	}
	at, err := time.Parse(time.RFC3339Nano, string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return at, string(m[2])
}

// waitExit waits for the node's process to end by itself and returns its
// exit code and the last line it wrote.
func waitExit(t *testing.T, n *Node, within time.Duration) (int, string) {
	t.Helper()
	select {
	case <-n.done:
	case <-time.After(within):
		t.Fatalf("the halted node still runs %v later", within)
	}
	code := n.cmd.ProcessState.ExitCode()
	n.cmd = nil
	if n.RPC != nil {
		n.RPC.Close()
		n.RPC, n.Eth = nil, nil
	}
	log, err := os.ReadFile(n.logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	return code, lines[len(lines)-1]
}

// failStopStream sends 1-wei transfers from one key to one node, each
// nonce once, until the node refuses one or stop closes; a probe sends
// one signed for another chain, which the node refuses without recording
// anything, until it is refused for another reason than that. At the first such refusal it reads the node's /ready
// and polls its CometBFT /health until it stops answering 200.
type failStopStream struct {
	n       *Node
	key     *ecdsa.PrivateKey
	to      common.Address
	chainID *big.Int
	nonce   uint64
	probe   bool

	mu       sync.Mutex
	accepted []common.Hash
	refused  chan struct{}
	// Written before refused closes.
	refusedAt  time.Time
	refusal    string
	readyCode  int
	readyBody  string
	readyAt    time.Time
	healthDown time.Time // when /health first failed; zero if it never did
}

func newFailStopStream(t *testing.T, n *Node, key *ecdsa.PrivateKey, chainID *big.Int, probe bool) *failStopStream {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := n.Eth.PendingNonceAt(ctx(t), from)
	if err != nil {
		t.Fatal(err)
	}
	return &failStopStream{n: n, key: key, chainID: chainID, nonce: nonce, probe: probe, refused: make(chan struct{}),
		to: common.BytesToAddress(crypto.Keccak256(from.Bytes())[:20])}
}

func (s *failStopStream) run(stop <-chan struct{}) {
	eth := s.n.Eth
	for {
		select {
		case <-stop:
			return
		default:
		}
		chainID := s.chainID
		if s.probe {
			chainID = new(big.Int).Add(chainID, big.NewInt(1))
		}
		tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
			ChainID: chainID, Nonce: s.nonce, GasTipCap: gwei(2), GasFeeCap: gwei(50), Gas: 21000, To: &s.to, Value: big.NewInt(1)})
		if err != nil {
			panic(err)
		}
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = eth.SendTransaction(c, tx)
		cancel()
		if s.probe && err != nil && !strings.Contains(err.Error(), "node halted") {
			time.Sleep(time.Millisecond)
			continue
		}
		if err == nil {
			s.mu.Lock()
			s.accepted = append(s.accepted, tx.Hash())
			s.mu.Unlock()
			s.nonce++
			continue
		}
		s.refusedAt, s.refusal = time.Now(), err.Error()
		s.readyCode, s.readyBody = getStatus("http://" + s.n.HTTP + "/ready")
		s.readyAt = time.Now()
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if code, _ := getStatus("http://" + s.n.CometRPC + "/health"); code != http.StatusOK {
				s.healthDown = time.Now()
				break
			}
		}
		close(s.refused)
		return
	}
}

// getStatus is the status and body (compacted when JSON) of a GET on a
// connection of its own, as a health probe makes it; 0 when nothing
// answered. (A connection CometBFT's RPC kept alive from before the halt
// is served until the process exits.)
func getStatus(url string) (int, string) {
	c := http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var compact bytes.Buffer
	if json.Compact(&compact, b) == nil {
		b = compact.Bytes()
	}
	return res.StatusCode, string(b)
}

func (s *failStopStream) waitRefused(t *testing.T) {
	t.Helper()
	select {
	case <-s.refused:
	case <-time.After(60 * time.Second):
		t.Fatalf("%d transactions accepted and none refused a minute after the disk filled", s.count())
	}
}

func (s *failStopStream) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.accepted)
}

func (s *failStopStream) hashes() []common.Hash {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]common.Hash(nil), s.accepted...)
}
