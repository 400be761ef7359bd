# Ember: the two commands a newcomer needs are `make dev` and `make test`.
GO       ?= go
BIN      ?= build/emberd
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)
LDFLAGS  := -X github.com/emberchain/ember/app.Version=$(VERSION)

# Each fuzz target runs for a number of executions (about 10 s each here),
# not a duration: go1.26's fuzz coordinator can report its own -fuzztime
# deadline as a failure ("context deadline exceeded", no crasher;
# golang/go#75804, fixed in go1.27). FUZZTIME=10m overrides them all.
FUZZTIME ?=
fuzzfor   = -fuzztime $(or $(FUZZTIME),$(1)) -fuzzminimizetime 100x

.PHONY: build dev test test-unit fuzz contracts bench bench-peers bench-transfers bench-logs bench-reads bench-traces bench-txpool bench-devchain bench-explorer bench-network soak perturb vet fmt clean

build: ## build emberd into build/emberd
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/emberd

dev: build ## run a local development chain (prefunded accounts printed)
	./$(BIN) dev $(ARGS)

# test: go vet compiles every package once. Then the end-to-end package is
# listed first, so that its nodes start while the unit packages compile and
# run beside it (go test starts packages in the order given), and the fuzz
# targets run beside both: their instrumented build is long, and the
# end-to-end tests spend much of their time waiting for blocks. The fuzz
# output is kept in build/fuzz.log and shown when the tests end.
E2E_PARALLEL ?= 4
test: vet ## run the whole test suite (unit, end-to-end incl. the explorer pages in headless Chromium, and each fuzz target for FUZZTIME); installs Debian's chromium and postgresql when absent
	@mkdir -p build
	@$(MAKE) --no-print-directory fuzz > build/fuzz.log 2>&1 & fuzz=$$!; \
	$(GO) test -count=1 -timeout 25m -parallel $(E2E_PARALLEL) ./test/e2e/ $$($(GO) list ./... | grep -v '/test/e2e$$'); rc=$$?; \
	wait $$fuzz; frc=$$?; cat build/fuzz.log; \
	if [ $$frc -ne 0 ]; then echo "make fuzz failed: see above (build/fuzz.log)"; fi; \
	[ $$rc -eq 0 ] && [ $$frc -eq 0 ]

fuzz: ## run each fuzz target for a fixed number of executions, about 10 s each (make fuzz FUZZTIME=10m for a long run)
	$(GO) test -run '^$$' -fuzz '^FuzzCheckTx$$' $(call fuzzfor,10000x) ./app
	$(GO) test -run '^$$' -fuzz '^FuzzJSONRPC$$' $(call fuzzfor,2000x) ./node
	$(GO) test -run '^$$' -fuzz '^FuzzScanCall$$' $(call fuzzfor,50000x) ./rpc
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFlat$$' $(call fuzzfor,50000x) ./rpc

contracts: ## recompile contracts/src with the pinned solc-js into contracts/artifacts
	cd contracts && npm install --no-audit --no-fund && node build.mjs

test-unit: ## run the tests that need no node
	$(GO) test -count=1 -short ./...

vet:
	$(GO) vet ./...

GETH_VERSION ?= v1.17.8
GETH         ?= build/geth-$(GETH_VERSION)/geth
BENCH_FLAGS  ?=

bench: build bench-peers ## Ember (explorer on and off) vs geth --dev and anvil in one run: writes, send→receipt latency, reads under wrk, shared cores and one core each (~6 min; BENCH_FLAGS="-parts reads -rounds 1 ..."; see bench/README.md)
	$(GO) run ./bench/compare -emberd $(BIN) -geth $(GETH) $(BENCH_FLAGS)

bench-peers: $(GETH) ## the peers the benchmarks compare against: anvil (npm, bench/node_modules) and geth (build/geth-<version>); wrk comes from Debian (apt-get install wrk)
	@test -d bench/node_modules/@foundry-rs/anvil || (cd bench && npm install --no-audit --no-fund)
	@command -v wrk >/dev/null || echo "wrk not found: apt-get install wrk (make bench's reads need it)"

$(GETH):
	GOBIN=$(abspath $(dir $(GETH))) GOFLAGS= $(GO) install github.com/ethereum/go-ethereum/cmd/geth@$(GETH_VERSION)

soak: DURATION ?= 1h
SOAK_FLAGS ?=
soak: build ## a dev node with the explorer under ~200 transfers/s for DURATION (default 1h): a row of its memory by part every minute, then whether it levelled off below the documented ceiling (docs/memory.md; SOAK_FLAGS="-rate 100 -out soak.csv -node-flags '--store.cache-mb=128'")
	$(GO) run ./bench/soak -emberd $(BIN) -duration $(DURATION) $(SOAK_FLAGS)

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

bench-devchain: build bench-peers ## anvil_mine of 1,000 blocks and the evm_revert + evm_snapshot round trip, Ember (explorer on/off) vs anvil (see bench/README.md)
	$(GO) run ./bench/devchain -emberd $(BIN)

bench-explorer: ## explorer: index 100,000 blocks / 1,000,000 txs (synthetic chain), then API p50/p99 and the pages (HTML + API calls, DOMContentLoaded in headless Chromium) (see bench/README.md; EXPLORER_BENCH_FLAGS="-db postgres://…")
	$(GO) run ./bench/explorer $(EXPLORER_BENCH_FLAGS)

bench-network: build ## 4 validators with production settings, p2p links through a delaying proxy (0 and 50 ms one way): transfers/s, send→inclusion p50/p99, block interval, Ember vs evmd v0.7.0 (scripts/build-evmd.sh; EVMD_SRC=checkout; ~12 min; NETWORK_BENCH_FLAGS="-delays 50ms ..."; see bench/README.md)
	scripts/build-evmd.sh
	$(GO) run ./bench/network -emberd $(BIN) -evmd build/evmd-v0.7.0/evmd $(NETWORK_BENCH_FLAGS)

# perturb: the long form of the perturbation suite (test/perturb): four
# validators under transfer load, faults drawn from a seed for DURATION,
# then the checks; PERTURB_FLAGS="-seed 42 -full 1 -rate 40 -dir /tmp/pt".
perturb: DURATION ?= 20m
perturb: build ## perturbation suite, long form: 4 validators under load, kill -9 / SIGSTOP / SIGTERM / partitions / latency / disk full (root) for DURATION (default 20m), then no fork, no lost tx, supply exact (see docs/testing.md)
	$(GO) run ./test/perturb/cmd/perturb -emberd $(BIN) -duration $(DURATION) $(PERTURB_FLAGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf build
