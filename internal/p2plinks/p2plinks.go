// Package p2plinks puts every p2p link of a local network of CometBFT nodes
// through its own TCP proxy, so that a test or a benchmark can delay a
// link, cut it (a partition) and heal it, on a machine without netem and
// without root.
//
// The proxies are Shopify's toxiproxy, used as a library: it is the tool the
// field already uses for this (latency with jitter, bandwidth, cut links),
// it runs in the caller's process (nothing to install or start), and its
// latency toxic delays each chunk by its own arrival time, so a delayed
// link keeps its bandwidth.
//
// A link is directed: link i→j carries the connections node i dials to node
// j. Node i's persistent_peers name j at that link's address, so every
// connection between two nodes passes one of the two links between them,
// and cutting both parts the nodes.
package p2plinks

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Node is one node of the network: its CometBFT node id and the host:port
// its p2p layer listens on.
type Node struct {
	ID  string
	P2P string
}

// Mesh is the set of proxies of a network: one per ordered pair of nodes.
type Mesh struct {
	nodes []Node

	mu    sync.Mutex
	links map[[2]int]*toxiproxy.Proxy
	cut   map[[2]int]bool
}

// New starts a proxy on 127.0.0.1 for every ordered pair of nodes.
func New(nodes []Node) (*Mesh, error) {
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	m := &Mesh{nodes: nodes, links: map[[2]int]*toxiproxy.Proxy{}, cut: map[[2]int]bool{}}
	for i := range nodes {
		for j := range nodes {
			if i == j {
				continue
			}
			p := toxiproxy.NewProxy(server, fmt.Sprintf("%d-%d", i, j), "127.0.0.1:0", nodes[j].P2P)
			if err := p.Start(); err != nil {
				m.Close()
				return nil, fmt.Errorf("proxy %d→%d: %w", i, j, err)
			}
			m.links[[2]int{i, j}] = p
		}
	}
	return m, nil
}

// Addr is the address node from dials to reach node to.
func (m *Mesh) Addr(from, to int) string {
	return m.links[[2]int{from, to}].Listen
}

// PersistentPeers is config.toml's p2p.persistent_peers for node i: every
// node in peers (all other nodes when peers is empty) at the address of
// the link from i.
func (m *Mesh) PersistentPeers(i int, peers ...int) string {
	if len(peers) == 0 {
		for j := range m.nodes {
			if j != i {
				peers = append(peers, j)
			}
		}
	}
	var out []string
	for _, j := range peers {
		out = append(out, m.nodes[j].ID+"@"+m.Addr(i, j))
	}
	return strings.Join(out, ",")
}

// SetLatency delays every byte on every link by d in each direction (so a
// round trip between two nodes takes 2d more), replacing any earlier delay.
// Zero removes the delay.
func (m *Mesh) SetLatency(d time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, p := range m.links {
		for _, stream := range []string{"upstream", "downstream"} {
			name := "latency_" + stream
			if p.Toxics.GetToxic(name) != nil {
				if err := p.Toxics.RemoveToxic(context.Background(), name); err != nil {
					return fmt.Errorf("link %v: %w", key, err)
				}
			}
			if d <= 0 {
				continue
			}
			body := fmt.Sprintf(`{"name":%q,"type":"latency","stream":%q,"attributes":{"latency":%d}}`,
				name, stream, d.Milliseconds())
			if _, err := p.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
				return fmt.Errorf("link %v: %w", key, err)
			}
		}
	}
	return nil
}

// Partition cuts every link between nodes of different groups (both
// directions) and heals every other one. A node in no group keeps its links
// to every node. Partition() with no groups heals the whole network.
//
// A cut link's proxy stops listening and closes its open connections, so
// both nodes see the peer go and their dials fail until it is healed.
func (m *Mesh) Partition(groups ...[]int) error {
	group := map[int]int{}
	for g, members := range groups {
		for _, n := range members {
			if n < 0 || n >= len(m.nodes) {
				return fmt.Errorf("partition: no node %d", n)
			}
			group[n] = g + 1
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, p := range m.links {
		gi, gj := group[key[0]], group[key[1]]
		cut := gi != 0 && gj != 0 && gi != gj
		if cut == m.cut[key] {
			continue
		}
		if cut {
			p.Stop()
		} else if err := p.Start(); err != nil {
			return fmt.Errorf("heal link %v: %w", key, err)
		}
		m.cut[key] = cut
	}
	return nil
}

// Heal reconnects every cut link.
func (m *Mesh) Heal() error { return m.Partition() }

// Close stops every proxy.
func (m *Mesh) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.links {
		p.Stop() // a no-op on a cut link
	}
}
