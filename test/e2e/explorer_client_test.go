package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/emberchain/ember/internal/wait"
)

// explorerGet fetches an explorer API path and returns status and body.
func (n *Node) explorerGet(t testing.TB, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get("http://" + n.Explorer + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// explorerJSON fetches path, requires 200, validates it against the named
// schema and decodes it into v.
func (n *Node) explorerJSON(t testing.TB, s *blockscoutSchemas, schema, path string, v any) {
	t.Helper()
	status, body := n.explorerGet(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if s != nil && schema != "" {
		s.validate(t.(*testing.T), schema, path, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// waitIndexed waits until the explorer has indexed block number.
func (n *Node) waitIndexed(t testing.TB, number uint64) {
	t.Helper()
	wait.Eventually(t, 60*time.Second, fmt.Sprintf("the explorer to index block %d", number), func() error {
		resp, err := http.Get("http://" + n.Explorer + "/api/v2/blocks/" + strconv.FormatUint(number, 10))
		if err != nil {
			return err
		}
		resp.Body.Close()
		return wait.Check(resp.StatusCode == http.StatusOK, "GET /api/v2/blocks/%d: %d", number, resp.StatusCode)
	})
}

// explorerPage is a list response.
type explorerPage struct {
	Items          []map[string]any `json:"items"`
	NextPageParams map[string]any   `json:"next_page_params"`
}

// followPages reads every page of a list endpoint, validating each against
// page:<item>, and returns all items in order.
func (n *Node) followPages(t *testing.T, s *blockscoutSchemas, item, path string) []map[string]any {
	t.Helper()
	var all []map[string]any
	next := path
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("%s: more than 1000 pages", path)
		}
		var p explorerPage
		n.explorerJSON(t, s, "page:"+item, next, &p)
		if len(p.Items) > 50 {
			t.Fatalf("%s: %d items on a page", next, len(p.Items))
		}
		all = append(all, p.Items...)
		if p.NextPageParams == nil {
			return all
		}
		u, _ := url.Parse(path)
		q := u.Query()
		for k, v := range p.NextPageParams {
			b, _ := json.Marshal(v)
			if str, ok := v.(string); ok {
				q.Set(k, str)
			} else {
				q.Set(k, string(b))
			}
		}
		u.RawQuery = q.Encode()
		next = u.String()
	}
}
