# Ember: the two commands a newcomer needs are `make dev` and `make test`.
GO       ?= go
BIN      ?= build/emberd
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)
LDFLAGS  := -X github.com/emberchain/ember/app.Version=$(VERSION)

FUZZTIME ?= 10s

.PHONY: build dev test test-unit fuzz contracts bench bench-transfers bench-logs bench-reads bench-traces bench-txpool bench-explorer vet fmt clean

build: ## build emberd into build/emberd
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/emberd

dev: build ## run a local development chain (prefunded accounts printed)
	./$(BIN) dev $(ARGS)

test: vet ## run the whole test suite (unit, end-to-end, and each fuzz target for FUZZTIME)
	$(GO) test -count=1 -timeout 25m ./...
	$(MAKE) fuzz

fuzz: ## run each fuzz target for FUZZTIME (make fuzz FUZZTIME=10m for a long run)
	$(GO) test -run '^$$' -fuzz '^FuzzCheckTx$$' -fuzztime $(FUZZTIME) ./app
	$(GO) test -run '^$$' -fuzz '^FuzzJSONRPC$$' -fuzztime $(FUZZTIME) ./node
	$(GO) test -run '^$$' -fuzz '^FuzzScanCall$$' -fuzztime $(FUZZTIME) ./rpc

contracts: ## recompile contracts/src with the pinned solc-js into contracts/artifacts
	cd contracts && npm install --no-audit --no-fund && node build.mjs

test-unit: ## run the tests that need no node
	$(GO) test -count=1 -short ./...

vet:
	$(GO) vet ./...

bench: build ## Ember (explorer on and off), geth --dev and anvil in one run: writes, send→receipt latency and reads with ratios (BENCH_FLAGS="-parts reads"; see bench/README.md)
	(cd bench && npm install --no-audit --no-fund) && $(GO) run ./bench/compare -emberd $(BIN) $(BENCH_FLAGS)

bench-transfers: build ## transfers/s and latency, Ember vs anvil (see bench/README.md)
	$(GO) run ./bench/transfers -emberd $(BIN)

bench-logs: build ## eth_getLogs over a million logs, Ember vs anvil and geth --dev (see bench/README.md)
	$(GO) run ./bench/logs -emberd $(BIN)

bench-reads: build ## JSON-RPC read throughput (req/s, p50, p99 per method), Ember vs anvil (see bench/README.md)
	$(GO) run ./bench/reads -emberd $(BIN)

bench-traces: build ## debug_traceBlockByNumber (callTracer) on a block of 500 ERC-20 transfers, Ember vs geth --dev (see bench/README.md)
	$(GO) run ./bench/traces -emberd $(BIN)

bench-txpool: build ## eth_sendRawTransaction admission rate (10,000 txs from 1,000 senders) and txpool_content latency, Ember vs geth --dev (see bench/README.md)
	$(GO) run ./bench/txpool -emberd $(BIN)

bench-explorer: ## explorer: index 100,000 blocks / 1,000,000 txs (synthetic chain), then API p50/p99 (see bench/README.md; EXPLORER_BENCH_FLAGS="-db postgres://…")
	$(GO) run ./bench/explorer $(EXPLORER_BENCH_FLAGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf build
