package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// sample is one reading of the node's memory.
type sample struct {
	elapsed time.Duration
	height  uint64
	sent    uint64 // transfers accepted by the node so far
	failed  uint64
	// From /proc/PID/status and smaps (bytes).
	rss, rssAnon, rssFile, rssShmem int64
	explorerMap                     int64 // resident pages of the explorer database's mappings
	// From the metrics endpoint (bytes): ember_memory_bytes by part, the
	// limits by part, the live heap and goal after the last GC.
	parts, limits      map[string]float64
	heapLive, heapGoal float64
	explorerLag        float64
}

// procStatus reads the resident set and its split from /proc/PID/status.
func procStatus(pid int, s *sample) error {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err
	}
	defer f.Close()
	fields := map[string]*int64{"VmRSS:": &s.rss, "RssAnon:": &s.rssAnon, "RssFile:": &s.rssFile, "RssShmem:": &s.rssShmem}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		if len(parts) >= 2 {
			if p, ok := fields[parts[0]]; ok {
				kb, _ := strconv.ParseInt(parts[1], 10, 64)
				*p = kb << 10
			}
		}
	}
	return sc.Err()
}

// mappedRSS sums the Rss of the mappings of /proc/PID/smaps whose file
// name contains name (the explorer database: its mmap and its -shm WAL
// index).
func mappedRSS(pid int, name string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var sum int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		if strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") { // a mapping's header line
			in = len(fs) >= 6 && strings.Contains(fs[len(fs)-1], name)
			continue
		}
		if in && fs[0] == "Rss:" && len(fs) >= 2 {
			kb, _ := strconv.ParseInt(fs[1], 10, 64)
			sum += kb << 10
		}
	}
	return sum, sc.Err()
}

// scrape reads the ember_memory_* series (and the explorer's lag) from
// the node's Prometheus endpoint.
func scrape(url string, s *sample) error {
	res, err := http.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, res.Status)
	}
	return parseMetrics(res.Body, s)
}

// parseMetrics reads the exposition text: enough of it for the series
// scrape wants, which are gauges with at most a part label.
func parseMetrics(r io.Reader, s *sample) error {
	s.parts, s.limits = map[string]float64{}, map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "ember_memory_") && !strings.HasPrefix(line, "ember_explorer_lag_blocks") {
			continue
		}
		name, part, v, ok := metricLine(line)
		if !ok {
			continue
		}
		switch name {
		case "ember_memory_bytes":
			s.parts[part] = v
		case "ember_memory_limit_bytes":
			s.limits[part] = v
		case "ember_memory_go_heap_live_bytes":
			s.heapLive = v
		case "ember_memory_go_heap_goal_bytes":
			s.heapGoal = v
		case "ember_explorer_lag_blocks":
			s.explorerLag = v
		}
	}
	return sc.Err()
}

// metricLine splits `name{part="x"} value` (or `name value`).
func metricLine(line string) (name, part string, v float64, ok bool) {
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return "", "", 0, false
	}
	v, err := strconv.ParseFloat(line[sp+1:], 64)
	if err != nil {
		return "", "", 0, false
	}
	name = line[:sp]
	if i := strings.IndexByte(name, '{'); i >= 0 {
		labels := name[i:]
		name = name[:i]
		if j := strings.Index(labels, `part="`); j >= 0 {
			rest := labels[j+len(`part="`):]
			if k := strings.IndexByte(rest, '"'); k >= 0 {
				part = rest[:k]
			}
		}
	}
	return name, part, v, true
}
