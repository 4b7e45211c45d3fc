# golem-box: `make demo` and `make test` are all a fresh machine needs.
GO      ?= go
BIN     := bin/golem-box
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: build setup test lint demo bench fuzz clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/golem-box

# setup installs the Debian packages golem-box drives and starts containerd and
# dockerd when they do not answer (idempotent).
setup:
	./scripts/setup

lint:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

test: setup lint
	GOOS=darwin CGO_ENABLED=0 $(GO) build ./...
	$(GO) test -race -count=1 ./...

demo: setup build
	./scripts/demo $(BIN)

bench: setup build
	$(GO) run ./bench

# fuzz runs each fuzz target for FUZZTIME (CI runs only their seed corpus).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./mountspec -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mountspec -run '^$$' -fuzz '^FuzzParseMountFlag$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mountspec -run '^$$' -fuzz '^FuzzParseVolumeFlag$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mountspec -run '^$$' -fuzz '^FuzzResolve$$' -fuzztime $(FUZZTIME)

clean:
	rm -rf bin
