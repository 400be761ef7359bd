package writes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// explorerPoll is how often the explorer's newest block is asked for.
const explorerPoll = 20 * time.Millisecond

// explorerAt waits until the explorer at base shows block head (its
// newest indexed block, /api/v2/main-page/blocks) and returns when it did,
// giving up after timeout.
func explorerAt(ctx context.Context, base string, head uint64, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		h, err := explorerHead(ctx, base)
		if err == nil && h >= head {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("explorer at block %d, not %d, after %v (last error: %v)", h, head, timeout, err)
		}
		time.Sleep(explorerPoll)
	}
}

func explorerHead(ctx context.Context, base string) (uint64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v2/main-page/blocks", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var blocks []struct {
		Height json.Number `json:"height"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&blocks); err != nil || len(blocks) == 0 {
		return 0, fmt.Errorf("main-page/blocks: %d blocks, %v", len(blocks), err)
	}
	return strconv.ParseUint(blocks[0].Height.String(), 10, 64)
}
