# The Makefile is the project's interface: make run, make test, make bench, make check.
GO      ?= go
BIN     := bin/numerology
OUT     ?= out
ADDR    ?= 127.0.0.1:8080
GOFLAGS_BUILD := -trimpath
# Every go command builds with -trimpath: the build cache (compiled packages, vet and
# staticcheck results) then serves any checkout of the repository, not only the folder it
# was filled from, so a fresh clone or worktree recompiles nothing that did not change.
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

CONTENT_FILES  := $(shell find content templates -type f 2>/dev/null)
GO_FILES       := $(shell find . -name '*.go' -not -path './edge/worker/node_modules/*' 2>/dev/null)

.PHONY: all build run generate verify test test-scale test-tree test-tools check bench bench-generate bench-serve bench-worker bench-pack bench-deploy bench-lighthouse clean

all: build

## build: compile bin/numerology
build: $(BIN)

$(BIN): $(GO_FILES) $(CONTENT_FILES) go.mod go.sum
	$(GO) build $(GOFLAGS_BUILD) -o $(BIN) ./cmd/numerology

## generate: (re)build the full out/ tree
generate: $(BIN)
	./$(BIN) generate --out $(OUT)

# The tree is rebuilt when the binary (and so the embedded content) changes; pack then adds
# the dataset archive under downloads/ (a new generate drops it, so the two run together).
$(OUT)/manifest.json: $(BIN)
	./$(BIN) generate --out $(OUT)
	./$(BIN) pack --dir $(OUT) --to dist

## verify: check out/ against its manifest
verify: $(OUT)/manifest.json
	./$(BIN) verify --dir $(OUT)

## run: build, generate and pack if needed, and serve the API on $(ADDR)
run: $(OUT)/manifest.json
	./$(BIN) serve --dir $(OUT) --addr $(ADDR)

## test-tools: install what the tests drive (Chromium, the worker's npm packages)
test-tools:
	scripts/test-tools.sh

## test: everything CI runs: checks, the full-range tree generated and verified once, all Go tests with no skip allowed (server, worker, pages, pack, deploy), and bounded fuzzing
# scripts/test.sh lays the jobs out side by side: the two tests that wait out a real minute
# start first, and the rest works while they wait.
test: $(BIN)
	GO=$(GO) MAKE=$(MAKE) scripts/test.sh

## test-scale: the route budget's proof (issue 26): a full-range tree of ten date routes generated, verified, served and planned on Workers Free (2.4 GB on tmpfs; about four minutes)
test-scale:
	NUMEROLOGY_TEST_NO_SKIP=1 $(GO) test -count=1 -tags scale -timeout 30m -run '^TestTenDateRoutes$$' -v ./generator

# test-tree: the full 1900–2100 tree, generated and verified as a publisher's CI would. make
# test makes it in a scratch folder of its own (scripts/test.sh) and shares it with the tests
# that need every date (generatortest.FullTree).
TEST_TREE ?= .cache/test-tree
test-tree: $(BIN)
	./$(BIN) generate --out $(TEST_TREE)
	./$(BIN) verify --dir $(TEST_TREE)

## check: formatting, vet, staticcheck, tidy modules, the import rules, no route literals in the edges, every skip through testsupport, actionlint on the workflows, and the repetition limits of the compatibility texts
check:
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) mod tidy -diff
	scripts/check-imports.sh
	scripts/check-route-literals.sh
	scripts/check-skips.sh
	$(GO) tool actionlint
	$(GO) test -count=1 -run '^(TestCompatibilityRepetition|TestRepetitionCounts)$$' ./content

## bench: every benchmark (each prints ratios against its baseline)
bench: bench-generate bench-serve bench-worker bench-pack bench-deploy bench-lighthouse

# The ten-route benchmark's binary: the build's date routes and synthetic ones, ten in all
# (generator/family_synthetic*.go, the tag "synthetic"); never deployed.
$(BIN)-ten: $(GO_FILES) $(CONTENT_FILES) go.mod go.sum
	$(GO) build $(GOFLAGS_BUILD) -tags synthetic -o $(BIN)-ten ./cmd/numerology

bench-generate: $(BIN) $(BIN)-ten
	scripts/bench-generate.sh $(BIN) $(BIN)-ten

bench-serve: $(BIN)
	scripts/bench-serve.sh $(BIN)

bench-worker: $(BIN) test-tools
	scripts/bench-worker.sh $(BIN)

bench-pack: $(BIN)
	scripts/bench-pack.sh $(BIN)

bench-deploy: $(BIN)
	scripts/bench-deploy.sh $(BIN)

# Lighthouse's performance score of the chart's and the personal year's pages and the life
# path's details page (mobile preset, CPU slowdown calibrated to the host), LIGHTHOUSE_ROUNDS
# rounds (5): median, lowest, highest.
bench-lighthouse: test-tools
	NUMEROLOGY_TEST_NO_SKIP=1 $(GO) test -count=1 -run '^$$' -bench '^BenchmarkLighthouse$$' -benchtime 1x -timeout 60m ./templates/browsertest

clean:
	rm -rf bin dist .cache
	find $(OUT) -mindepth 1 -not -name .gitkeep -delete 2>/dev/null || true
