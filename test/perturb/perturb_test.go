package perturb

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// The same seed gives the same schedule; every fault is well formed
// (kills of one or two distinct validators, 1|3 or 2|2 partitions of all
// four, holds in the documented ranges) and disk-full comes at most once.
func TestScheduleFromSeed(t *testing.T) {
	a := Schedule(42, 200, 4, AllKinds, 3)
	if b := Schedule(42, 200, 4, AllKinds, 3); !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two schedules")
	}
	if c := Schedule(43, 200, 4, AllKinds, 3); reflect.DeepEqual(a, c) {
		t.Fatal("two seeds gave the same schedule")
	}
	disk := 0
	for _, f := range a {
		switch f.Kind {
		case KillKind:
			if len(f.Nodes) < 1 || len(f.Nodes) > 2 || (len(f.Nodes) == 2 && f.Nodes[0] == f.Nodes[1]) || f.Hold < 2*time.Second || f.Hold > 7*time.Second {
				t.Fatalf("bad kill %v", f)
			}
		case PartitionKind:
			if len(f.Groups) != 2 || len(f.Groups[0])+len(f.Groups[1]) != 4 || len(f.Groups[0]) > 2 || f.Hold < 10*time.Second || f.Hold > 30*time.Second {
				t.Fatalf("bad partition %v", f)
			}
		case DiskFullKind:
			disk++
			if !reflect.DeepEqual(f.Nodes, []int{3}) {
				t.Fatalf("disk-full on %v, want node 3", f.Nodes)
			}
		}
	}
	if disk != 1 {
		t.Fatalf("%d disk-full faults in 200, want 1", disk)
	}
	for _, f := range Schedule(42, 50, 4, AllKinds, -1) {
		if f.Kind == DiskFullKind {
			t.Fatal("disk-full drawn with no victim")
		}
	}
}

// An accepted tx is included by hash, replaced when its sender's nonce is
// used by another included tx, and lost otherwise.
func TestClassify(t *testing.T) {
	alice, bob := common.Address{1}, common.Address{2}
	sent := time.Unix(1000, 0)
	blocks := []block{{Number: 1, Time: sent.Add(1500 * time.Millisecond), Txs: []blockTx{{Hash: common.Hash{0xa0}, From: alice, Nonce: 0}}},
		{Number: 2, Txs: []blockTx{{Hash: common.Hash{0xb1}, From: alice, Nonce: 1}}}}
	got := classify([]Accepted{
		{Hash: common.Hash{0xa0}, From: alice, Nonce: 0, SentAt: sent},
		{Hash: common.Hash{0xa1}, From: alice, Nonce: 1}, // same nonce as 0xb1
		{Hash: common.Hash{0xa2}, From: alice, Nonce: 2},
		{Hash: common.Hash{0xc0}, From: bob, Nonce: 1},
	}, blocks)
	if len(got.Delays) != 1 || got.Delays[0].Hash != (common.Hash{0xa0}) || got.Delays[0].Delay != 1500*time.Millisecond || got.Delay(50) != 1500*time.Millisecond {
		t.Fatalf("delays = %+v, want 0xa0's 1.5 s", got.Delays)
	}
	if got.Included != 1 || len(got.Replaced) != 1 || got.Replaced[0].Hash != (common.Hash{0xa1}) || len(got.Lost) != 2 || got.Lost[0].Hash != (common.Hash{0xa2}) || got.Lost[1].Hash != (common.Hash{0xc0}) {
		t.Fatalf("classify = %+v", got)
	}
}

// blockDiff names each field two nodes disagree on, and nothing when they
// agree.
func TestBlockDiff(t *testing.T) {
	b := block{Number: 5, Hash: common.Hash{1}, StateRoot: common.Hash{2}, Txs: []blockTx{{Hash: common.Hash{3}}}}
	cb := cometBlock{Hash: "AB", AppHash: "CD"}
	if d := blockDiff(b, b, cb, cb); d != "" {
		t.Fatalf("identical blocks differ: %s", d)
	}
	o := b
	o.StateRoot = common.Hash{9}
	oc := cometBlock{Hash: "AB", AppHash: "EF"}
	d := blockDiff(b, o, cb, oc)
	if !strings.Contains(d, "state root") || !strings.Contains(d, "app hash") || strings.Contains(d, "hash 0x") {
		t.Fatalf("diff %q: want the state root and the app hash only", d)
	}
}

// A report with a fork, a lost tx, a supply mismatch or a failed fault is
// an error that names each; a clean one is not.
func TestReportErr(t *testing.T) {
	clean := &Report{Accepted: 3, Txs: TxOutcome{Included: 3},
		Supply: &Supply{Genesis: big.NewInt(10), Minted: big.NewInt(2), Burned: big.NewInt(1), Final: big.NewInt(11)},
		Faults: []FaultResult{{Seq: 1, Fault: Fault{Kind: KillKind, Nodes: []int{1}}, Recovery: time.Second}}}
	if err := clean.Err(); err != nil {
		t.Fatalf("clean report: %v", err)
	}
	if !strings.Contains(clean.String(), "RESULT: PASS") || !strings.Contains(clean.String(), "kill-9 ×1") {
		t.Fatalf("clean report reads:\n%s", clean)
	}
	bad := *clean
	bad.Forks = []Fork{{Height: 7, Node: "node2", What: "state root"}}
	bad.Txs = TxOutcome{Included: 2, Lost: []Accepted{{Hash: common.Hash{5}}}}
	bad.Supply = &Supply{Genesis: big.NewInt(10), Minted: big.NewInt(2), Burned: big.NewInt(1), Final: big.NewInt(12), Errors: []string{"off by 1"}}
	bad.Faults = []FaultResult{{Seq: 1, Fault: Fault{Kind: PartitionKind, Groups: [][]int{{0, 1}, {2, 3}}}, Err: "not recovered"}}
	err := bad.Err()
	for _, want := range []string{"fork: height 7 on node2", "lost tx " + (common.Hash{5}).Hex(), "supply: off by 1", "fault 1 (partition 0 1 | 2 3"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v lacks %q", err, want)
		}
	}
	if bad.ForkHeights() != 1 || !strings.Contains(bad.String(), "RESULT: FAIL") || !strings.Contains(bad.String(), "partition 2|2") {
		t.Fatalf("bad report reads:\n%s", &bad)
	}
}
