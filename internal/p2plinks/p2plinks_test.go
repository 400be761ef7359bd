package p2plinks

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echoServer answers each line with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(line))
				}
			}()
		}
	}()
	return l.Addr().String()
}

// roundTrip sends a line through addr and waits for its echo.
func roundTrip(addr string) (time.Duration, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	start := time.Now()
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return 0, err
	}
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func TestMeshLatencyAndPartition(t *testing.T) {
	nodes := []Node{{ID: "a", P2P: echoServer(t)}, {ID: "b", P2P: echoServer(t)}, {ID: "c", P2P: echoServer(t)}}
	m, err := New(nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got, want := m.PersistentPeers(1), "a@"+m.Addr(1, 0)+",c@"+m.Addr(1, 2); got != want {
		t.Fatalf("PersistentPeers(1) = %q, want %q", got, want)
	}
	if _, err := roundTrip(m.Addr(0, 1)); err != nil {
		t.Fatalf("open link: %v", err)
	}

	if err := m.SetLatency(60 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	rtt, err := roundTrip(m.Addr(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if rtt < 120*time.Millisecond {
		t.Fatalf("round trip with 60 ms each way took %v, want at least 120 ms", rtt)
	}
	if err := m.SetLatency(0); err != nil {
		t.Fatal(err)
	}

	if err := m.Partition([]int{0}, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]int{{0, 1}, {1, 0}, {0, 2}, {2, 0}} {
		if _, err := roundTrip(m.Addr(l[0], l[1])); err == nil {
			t.Fatalf("link %v answers across the partition", l)
		}
	}
	if _, err := roundTrip(m.Addr(1, 2)); err != nil {
		t.Fatalf("link 1→2 inside a group: %v", err)
	}
	if err := m.Heal(); err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(m.Addr(2, 0)); err != nil {
		t.Fatalf("healed link 2→0: %v", err)
	}
}
