# Ember: the two commands a newcomer needs are `make dev` and `make test`.
GO       ?= go
BIN      ?= build/emberd
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)
LDFLAGS  := -X github.com/emberchain/ember/app.Version=$(VERSION)

.PHONY: build dev test test-unit test-e2e bench-transfers vet fmt clean

build: ## build emberd into build/emberd
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/emberd

dev: build ## run a local development chain (prefunded accounts printed)
	./$(BIN) dev $(ARGS)

test: vet ## run the whole test suite (unit and end-to-end)
	$(GO) test -count=1 -timeout 25m ./...

test-unit: ## run the tests that need no node
	$(GO) test -count=1 -short ./...

vet:
	$(GO) vet ./...

bench-transfers: build ## transfers/s and latency, Ember vs anvil (see bench/README.md)
	$(GO) run ./bench/transfers -emberd $(BIN)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf build
