package indexer

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/emberchain/ember/explorer"
)

// Metadata fetching limits and defaults.
const (
	DefaultIPFSGateway  = "https://ipfs.io/ipfs/"
	MetadataTimeout     = 10 * time.Second // one fetch, connection included
	MetadataMaxSize     = 1 << 20          // bytes of JSON accepted
	metadataBatch       = 32               // instances taken per round
	metadataConcurrency = 4                // fetches in flight
	metadataIdle        = 2 * time.Second  // poll when there was nothing to do
)

// MetadataFetcher fills NFT instances' metadata in the background: for each
// instance the indexer recorded, it calls tokenURI (ERC-721) or uri
// (ERC-1155) at the indexed height and fetches what the URI names — a data:
// URI (base64 or percent-encoded), an http(s) URL, or an ipfs:// one through
// the gateway — bounded in time and size. A failure is recorded with its
// reason, never retried on its own (refetch-metadata queues it again) and
// never stops anything: indexing does not wait for this.
type MetadataFetcher struct {
	st      explorer.Store
	caller  explorer.Caller
	gateway string
	client  *http.Client
	log     *slog.Logger
	wake    chan struct{}
}

// NewMetadataFetcher fetches for st through caller; gateway is the IPFS
// HTTP gateway prefix ("" = DefaultIPFSGateway).
func NewMetadataFetcher(st explorer.Store, caller explorer.Caller, gateway string, log *slog.Logger) *MetadataFetcher {
	if gateway == "" {
		gateway = DefaultIPFSGateway
	}
	if !strings.HasSuffix(gateway, "/") {
		gateway += "/"
	}
	return &MetadataFetcher{st: st, caller: caller, gateway: gateway, log: log, wake: make(chan struct{}, 1),
		client: &http.Client{Timeout: MetadataTimeout}}
}

// Wake makes the fetcher look for work now (after a refetch request).
func (f *MetadataFetcher) Wake() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Run fetches until ctx ends.
func (f *MetadataFetcher) Run(ctx context.Context) {
	for {
		n, err := f.round(ctx)
		if err != nil && ctx.Err() == nil {
			f.log.Warn("NFT metadata fetcher", "err", err)
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		case <-time.After(metadataIdle):
		}
	}
}

// round fetches one batch of queued instances and reports how many.
func (f *MetadataFetcher) round(ctx context.Context) (int, error) {
	height, ok, err := f.st.IndexedHeight(ctx)
	if err != nil || !ok {
		return 0, err
	}
	list, err := f.st.UnfetchedInstances(ctx, metadataBatch)
	if err != nil || len(list) == 0 {
		return 0, err
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, metadataConcurrency)
	errs := make([]error, len(list))
	for i := range list {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			in := &list[i]
			uri, meta, reason := f.fetch(ctx, height, in)
			errs[i] = f.st.SetInstanceMetadata(ctx, in.Token, in.TokenID, uri, meta, reason)
		}(i)
	}
	wg.Wait()
	return len(list), errors.Join(errs...)
}

// fetch resolves one instance: the URI (nil when the call failed), the
// metadata JSON, or the reason there is none.
func (f *MetadataFetcher) fetch(ctx context.Context, height uint64, in *explorer.TokenInstance) (*string, []byte, *string) {
	fail := func(format string, args ...any) *string {
		s := fmt.Sprintf(format, args...)
		if len(s) > 500 {
			s = s[:500]
		}
		return &s
	}
	uri, err := TokenURI(ctx, f.caller, height, in.Token, in.Type, in.TokenID)
	if err != nil {
		return nil, nil, fail("token URI: %v", err)
	}
	body, err := f.get(ctx, uri)
	if err != nil {
		return &uri, nil, fail("%v", err)
	}
	meta, err := metadataJSON(body)
	if err != nil {
		return &uri, nil, fail("%v", err)
	}
	return &uri, meta, nil
}

// get reads what uri names, at most MetadataMaxSize bytes.
func (f *MetadataFetcher) get(ctx context.Context, uri string) ([]byte, error) {
	trimmed := strings.TrimSpace(uri)
	switch {
	case trimmed == "":
		return nil, errors.New("empty token URI")
	case strings.HasPrefix(trimmed, "{"):
		return []byte(trimmed), nil // some contracts return the JSON itself
	case strings.HasPrefix(strings.ToLower(trimmed), "data:"):
		return decodeDataURI(trimmed)
	}
	u, err := url.Parse(trimmed)
	if err != nil {
		return nil, fmt.Errorf("bad token URI: %v", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "ipfs":
		path := strings.TrimPrefix(strings.TrimPrefix(trimmed[len("ipfs://"):], "/"), "ipfs/")
		if path == "" {
			return nil, errors.New("empty ipfs:// URI")
		}
		trimmed = f.gateway + path
	case "http", "https":
	default:
		return nil, fmt.Errorf("unsupported URI scheme %q", u.Scheme)
	}
	ctx, cancel := context.WithTimeout(ctx, MetadataTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, trimmed, nil)
	if err != nil {
		return nil, fmt.Errorf("bad token URI: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch: HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MetadataMaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("fetch: %v", err)
	}
	if len(body) > MetadataMaxSize {
		return nil, fmt.Errorf("metadata larger than %d bytes", MetadataMaxSize)
	}
	return body, nil
}

// decodeDataURI reads an RFC 2397 data: URI's payload.
func decodeDataURI(uri string) ([]byte, error) {
	head, payload, ok := strings.Cut(uri[len("data:"):], ",")
	if !ok {
		return nil, errors.New("data: URI without a comma")
	}
	if len(payload) > 2*MetadataMaxSize {
		return nil, fmt.Errorf("metadata larger than %d bytes", MetadataMaxSize)
	}
	var body []byte
	if strings.HasSuffix(strings.ToLower(head), ";base64") {
		var err error
		clean := strings.TrimRight(strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, payload), "=")
		if body, err = base64.RawStdEncoding.DecodeString(clean); err != nil {
			if body, err = base64.RawURLEncoding.DecodeString(clean); err != nil {
				return nil, fmt.Errorf("data: URI: bad base64: %v", err)
			}
		}
	} else {
		s, err := url.PathUnescape(payload)
		if err != nil {
			s = payload // a bare % in plain JSON
		}
		body = []byte(s)
	}
	if len(body) > MetadataMaxSize {
		return nil, fmt.Errorf("metadata larger than %d bytes", MetadataMaxSize)
	}
	return body, nil
}

// metadataJSON requires a JSON object and returns it compacted.
func metadataJSON(body []byte) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("metadata is not a JSON object: %v", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
