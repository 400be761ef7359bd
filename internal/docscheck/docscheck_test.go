package docscheck

// The rules this guard enforces, and where the line is drawn.
//
// Comments (TestCommentsQuoteNoFigures). Every non-test .go file of the
// module outside bench/ (and outside testdata/, node_modules/ and hidden
// directories) is parsed with go/parser; each comment group is read as one
// text, so a figure and the words that make it a measurement may sit on
// different lines. A comment is flagged when it quotes
//
//   - a date: 2006-01-02, a month name with a year ("Nov 2026", "27
//     November 2026"), or a clock time in UTC;
//   - a rate: a number followed by req/s, tx/s, transfers/s, calls/s, MB/s
//     and the like;
//   - a comparison with a peer: "3.2× geth", "1.5x anvil", "2 times faster";
//   - a percentile with its value: "p50 6.0 ms", "p99 = 13";
//   - a before/after pair with a unit, or of series: "46 → 27 µs", "38 / 30
//     → 21 / 24", "was 7 %", "now 5 ms", "from 3,725 to 4,237
//     transfers/s" (but not "nonce 0 → 1", nor whole durations: "grows
//     from 1 ms to 50 ms" describes the code);
//   - a share of a cost: a percentage or a duration followed by "of" ("6 %
//     of a light eth_call", "1.2 ms of a block"), or a percentage in a
//     sentence that speaks of CPU, profiles or allocations;
//   - a measured duration: one with a decimal fraction ("0.45 ms"), a
//     range ("8–21 ms"), or an approximation or cost ("~10 µs", "about 4
//     ms", "took 12 ms");
//   - fractional CPU cores ("1.6 cores") or a benchmarking session.
//
// Not flagged, because they state what the code does rather than what a
// run measured: whole-number durations and percentages on their own ("100
// ms before the write timeout", "a 10% price bump", "by up to 12.5%"), sizes
// ("64 MiB"), EIP and issue numbers (cometbft#1693), and any figure in a
// comment that trails code on the same line, which documents the value on
// that line (a histogram's bucket range, a constant's unit). The share,
// duration and cores rules do not apply there; dates, rates, peer
// comparisons, percentiles and before/after pairs still do.
//
// README.md (TestREADMELength) has at most maxREADMELines lines.
//
// Links (TestRelativeLinksResolve): in README.md, docs/*.md and
// bench/README.md, every Markdown link or image that is not a URL with a
// scheme names a file or directory that exists, relative to the linking
// file; a #fragment names a heading of the target Markdown file, spelled
// as GitHub spells heading anchors, or an explicit <a name>/id. Links in
// code blocks and code spans are not links and are skipped.

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

const maxREADMELines = 300

// repoRoot is the directory holding go.mod, found upwards from the test's
// working directory (the package directory).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// --- comments ---------------------------------------------------------------

const (
	num      = `\d[\d,]*(?:\.\d+)?`
	durUnit  = `(?:ns|µs|us|ms)`
	anyUnit  = `(?:%|ns|µs|us|ms|s|KB|KiB|MB|MiB|GB|x|×|cores?)`
	rangeSep = `\s*(?:–|-|to)\s*`
)

type rule struct {
	name string
	re   *regexp.Regexp
	// inTrailing says whether the rule also applies to a comment that
	// trails code on its line.
	inTrailing bool
}

var month = `(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)`

var rules = []rule{
	{"date", regexp.MustCompile(`\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b`), true},
	{"date", regexp.MustCompile(`\b` + month + `\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?(?:19|20)\d\d\b`), true},
	{"date", regexp.MustCompile(`\b\d{1,2}\s+` + month + `\.?,?\s+(?:19|20)\d\d\b`), true},
	{"date", regexp.MustCompile(`\b\d{1,2}:\d\d\s*UTC\b`), true},
	{"rate", regexp.MustCompile(`(?i)` + num + `\s*[kM]?\s*(?:req|reqs|requests|tx|txs|transactions|transfers|calls|ops|blocks|queries|logs|gas|[KMG]i?B)/s\b`), true},
	{"peer comparison", regexp.MustCompile(`(?i)` + num + `\s*(?:×|x\b|times)\s*(?:geth|anvil|reth|erigon|nethermind|ethermint|evmos|faster|slower|quicker|as fast)`), true},
	{"percentile", regexp.MustCompile(`(?i)\bp(?:50|90|95|99|999)\b\s*(?:=|:|of|at|was|is)?\s*~?` + num), true},
	{"before/after", regexp.MustCompile(num + `\s*` + anyUnit + `?\s*(?:→|->|=>)\s*~?` + num + `\s*` + anyUnit), true},
	{"before/after", regexp.MustCompile(num + `\s*` + anyUnit + `\s*(?:→|->|=>)\s*~?` + num), true},
	{"before/after", regexp.MustCompile(num + `(?:\s*/\s*` + num + `)+\s*(?:→|->|=>)\s*~?` + num), true},
	{"before/after", regexp.MustCompile(`(?i)\b(?:was|were|now)\s+(?:about\s+|around\s+|~)?` + num + `\s*(?:%|` + durUnit + `\b|s\b|KB\b|MB\b|cores?\b)`), true},
	{"before/after", regexp.MustCompile(`(?i)\bfrom\s+~?` + num + `\s*` + anyUnit + `?\s+to\s+~?` + num + `\s*(?:%|KB\b|MB\b|cores?\b|[a-z]+/s\b)`), true},
	{"share", regexp.MustCompile(num + `\s*(?:%|` + durUnit + `)\s+of\b`), false},
	{"share", regexp.MustCompile(`(?i)` + num + `\s*%[^.;]{0,80}\b(?:CPU|profile|pprof|perf|allocat\w*)`), false},
	{"share", regexp.MustCompile(`(?i)\b(?:CPU|profile|pprof|perf|allocat\w*)\b[^.;]{0,80}?` + num + `\s*%`), false},
	{"measured duration", regexp.MustCompile(`\d+\.\d+\s*` + durUnit + `\b`), false},
	{"measured duration", regexp.MustCompile(num + rangeSep + num + `\s*(?:` + durUnit + `\b|%)`), false},
	{"measured duration", regexp.MustCompile(`(?i)(?:~|≈|\babout\s+|\baround\s+|\broughly\s+|\btook\s+|\btakes\s+|\bspent\s+|\bcosts?\s+)` + num + `\s*` + durUnit + `\b`), false},
	{"cores", regexp.MustCompile(`(?i)\d+\.\d+\s*cores?\b`), false},
	{"session", regexp.MustCompile(`(?i)\b(?:benchmark(?:ing)?|profiling|measuring|this|that|today's|last)\s+session\b`), true},
}

// skipDir says whether a directory's Go files are outside the rule:
// bench/ is where measurements live; testdata and node_modules hold no
// code of the module; hidden directories are tooling.
func skipDir(rel, name string) bool {
	return rel == "bench" || name == "testdata" || name == "node_modules" ||
		(strings.HasPrefix(name, ".") && name != ".")
}

// A commentText is one comment group as plain text, with the source line of
// each byte offset, so that a match can be reported where it starts.
type commentText struct {
	text     string
	offsets  []int // offsets[i] is where line lines[i] starts in text
	lines    []int
	trailing bool
}

func (c commentText) lineAt(off int) int {
	i := sort.Search(len(c.offsets), func(i int) bool { return c.offsets[i] > off }) - 1
	return c.lines[i]
}

func commentTexts(t *testing.T, path string) []commentText {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	srcLines := strings.Split(string(src), "\n")
	var out []commentText
	for _, g := range f.Comments {
		var ct commentText
		var b strings.Builder
		for i, c := range g.List {
			pos := fset.Position(c.Slash)
			if i == 0 && len(g.List) == 1 && pos.Line <= len(srcLines) {
				before := srcLines[pos.Line-1][:pos.Column-1]
				ct.trailing = strings.TrimSpace(before) != ""
			}
			text := c.Text
			if strings.HasPrefix(text, "//go:") || strings.HasPrefix(text, "//line ") {
				continue
			}
			if strings.HasPrefix(text, "//") {
				text = text[2:]
			} else {
				text = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
			}
			for j, l := range strings.Split(text, "\n") {
				ct.offsets = append(ct.offsets, b.Len())
				ct.lines = append(ct.lines, pos.Line+j)
				b.WriteString(strings.TrimSpace(l))
				b.WriteByte(' ')
			}
		}
		ct.text = b.String()
		if len(ct.offsets) > 0 {
			out = append(out, ct)
		}
	}
	return out
}

// findFigures returns "path:line: rule: «quote»" for every comment of the
// module's non-test Go files (outside the skipped directories) that
// breaks a rule.
func findFigures(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, c := range commentTexts(t, path) {
			for _, r := range rules {
				if c.trailing && !r.inTrailing {
					continue
				}
				for _, m := range r.re.FindAllStringIndex(c.text, -1) {
					at := fmt.Sprintf("%s:%d", rel, c.lineAt(m[0]))
					if seen[at] {
						continue
					}
					seen[at] = true
					found = append(found, fmt.Sprintf("%s: %s: «%s»", at, r.name, c.text[m[0]:m[1]]))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	return found
}

func TestCommentsQuoteNoFigures(t *testing.T) {
	found := findFigures(t, repoRoot(t))
	if len(found) > 0 {
		t.Errorf("%d comments quote a benchmark figure or a date; say why the code is as it is, "+
			"and put measurements in the commit message or bench/README.md:\n%s",
			len(found), strings.Join(found, "\n"))
	}
}

// TestRulesFlagDiariesNotConstants pins the line the rules draw, both ways.
func TestRulesFlagDiariesNotConstants(t *testing.T) {
	flagged := []string{
		"measured on 2026-11-27 at height 30,000",
		"as of Nov 2026, the fast path",
		"the 16:58 UTC run",
		"it serves 77,497 req/s on two cores",
		"ERC-20 transfers at 4.57× geth",
		"about 1.5x anvil",
		"send → receipt p50 6.0 ms",
		"cut the CPU per call from 46 to 27 µs",
		"46 → 27 µs per eth_blockNumber",
		"reflect's share 4.6 % → 1.6 %",
		"sends over 9 ms 38 / 30 / 34 → 21 / 24 / 19",
		"it was 7 % of the node's CPU",
		"now 5 ms a block",
		"they were 6 % of a light eth_call",
		"reflect's share of the CPU: 4 %",
		"each collection 8–21 ms",
		"the node spends ~10 µs of CPU",
		"took 12 ms a block",
		"a read of 0.45 ms",
		"~1.6 cores in a burst",
		"in this session the reads",
		"the Prague fork of May 2025",
	}
	for _, s := range flagged {
		if !anyRule(s, false) {
			t.Errorf("not flagged, but a measurement: %q", s)
		}
	}
	allowed := []string{
		"answers 100 ms before the HTTP write timeout",
		"a replacement must add 10% to fee cap and tip",
		"the base fee may differ by up to 12.5%",
		"a 64 MiB cache",
		"EIP-1559, EIP-4844 and EIP-7702 transactions",
		"upstream cometbft#1693, fixed after v0.38",
		"waits up to 5 ms for a transaction",
		"the pause between polls grows from 1 ms to 50 ms",
		"a 4 KiB page",
		"keys at m/44'/60'/0'/0/N",
		"the nonce goes 0 → 1 when it is included",
		"a stored set is brought forward one height at a time",
	}
	for _, s := range allowed {
		if anyRule(s, false) {
			t.Errorf("flagged, but states what the code does: %q", s)
		}
	}
	if anyRule("0.5 ms .. 4 s", true) {
		t.Error("a trailing comment's bucket range flagged")
	}
	if !anyRule("measured 2026-11-27", true) {
		t.Error("a date in a trailing comment not flagged")
	}
}

func anyRule(s string, trailing bool) bool {
	for _, r := range rules {
		if trailing && !r.inTrailing {
			continue
		}
		if r.re.MatchString(s) {
			return true
		}
	}
	return false
}

// --- README length --------------------------------------------------------

func TestREADMELength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, at most %d: move detail to docs/ and link it", n, maxREADMELines)
	}
}

// --- links ----------------------------------------------------------------

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	heading    = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	scheme     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// proseLines returns a Markdown file's lines outside fenced code blocks,
// with their 1-based numbers.
func proseLines(text string) (lines []string, numbers []int) {
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if fence.MatchString(l) {
			in = !in
			continue
		}
		if !in {
			lines = append(lines, l)
			numbers = append(numbers, n)
		}
	}
	return lines, numbers
}

// slug spells a heading's anchor as GitHub does: the rendered text in
// lower case, without punctuation other than hyphens and underscores,
// spaces turned into hyphens.
func slug(h string) string {
	h = mdLinkText.ReplaceAllString(h, "$1")
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	h = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(h, "")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the fragments a Markdown file answers to.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	lines, _ := proseLines(text)
	for _, l := range lines {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if c := count[s]; c > 0 {
			out[fmt.Sprintf("%s-%d", s, c)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	return out
}

// brokenLinks returns "file:line: target: why" for every relative link of
// the Markdown file at rel (relative to root) that does not resolve.
func brokenLinks(root, rel string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	var out []string
	lines, numbers := proseLines(string(b))
	for i, l := range lines {
		l = codeSpan.ReplaceAllString(l, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
		}
		if m := refDef.FindStringSubmatch(l); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if why := checkLink(root, rel, target); why != "" {
				out = append(out, fmt.Sprintf("%s:%d: %s: %s", rel, numbers[i], target, why))
			}
		}
	}
	return out, nil
}

func checkLink(root, rel, target string) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	path, frag, _ := strings.Cut(target, "#")
	file := filepath.Join(root, rel)
	if path != "" {
		p, err := url.PathUnescape(path)
		if err != nil {
			return "bad escape"
		}
		file = filepath.Join(filepath.Dir(file), filepath.FromSlash(p))
		if r, err := filepath.Rel(root, file); err != nil || strings.HasPrefix(r, "..") {
			return "outside the repository"
		}
		if _, err := os.Stat(file); err != nil {
			return "no such file"
		}
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	f, err := url.PathUnescape(frag)
	if err != nil {
		return "bad escape in fragment"
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !anchors(string(text))[f] {
		return "no such heading"
	}
	return ""
}

func TestRelativeLinksResolve(t *testing.T) {
	root := repoRoot(t)
	files := []string{"README.md", "bench/README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		r, _ := filepath.Rel(root, d)
		files = append(files, filepath.ToSlash(r))
	}
	var broken []string
	for _, f := range files {
		b, err := brokenLinks(root, f)
		if err != nil {
			t.Fatal(err)
		}
		broken = append(broken, b...)
	}
	if len(broken) > 0 {
		t.Errorf("%d relative links do not resolve:\n%s", len(broken), strings.Join(broken, "\n"))
	}
}

func TestSlugLikeGitHub(t *testing.T) {
	for h, want := range map[string]string{
		"Ethereum JSON-RPC — `http://127.0.0.1:8545`, `ws://127.0.0.1:8546`": "ethereum-json-rpc--http1270018545-ws1270018546",
		"compare: `make bench`, Ember vs geth --dev vs anvil in one run":     "compare-make-bench-ember-vs-geth---dev-vs-anvil-in-one-run",
		"The explorer's pages":                         "the-explorers-pages",
		"`emberd testnet init` / `start` / `add-node`": "emberd-testnet-init--start--add-node",
		"Private namespaces (authentication)":          "private-namespaces-authentication",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
