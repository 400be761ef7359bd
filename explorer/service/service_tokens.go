package service

import (
	"context"
	"log/slog"
	"sync"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/indexer"
)

// metadata is the NFT metadata fetcher, when the source can run calls.
type metadata struct {
	f *indexer.MetadataFetcher // nil: no Caller, nothing fetched
}

func startMetadata(st explorer.Store, src explorer.Source, gateway string, log *slog.Logger) *metadata {
	caller, ok := src.(explorer.Caller)
	if !ok {
		return &metadata{}
	}
	return &metadata{f: indexer.NewMetadataFetcher(st, caller, gateway, log.With("part", "nft-metadata"))}
}

// wake is the API's refetch hook; nil without a fetcher.
func (m *metadata) wake() {
	if m.f != nil {
		m.f.Wake()
	}
}

func (m *metadata) run(ctx context.Context, wg *sync.WaitGroup) {
	if m.f == nil {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.f.Run(ctx)
	}()
}
