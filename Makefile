# Strategist: `make run` starts the app on a fresh machine; `make test` runs
# everything CI runs; `make help` lists the targets. Each target is documented
# by a `## name: text` line above it, which is what help prints.

SHELL := /bin/bash
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
BIN := bin/strategist
# -trimpath keeps file paths out of what is built, so a fresh clone at a
# new path reuses the build cache of the last one (its compiles are most of
# a first run's time) instead of building every package again.
GO_TEST_FLAGS ?= -race -trimpath -shuffle=on -timeout 20m
# golangci-lint is a Go tool pinned in its own module file, so that its
# hundred dependencies never change the versions the server is built with.
# The first run builds it (a few minutes); later runs use the build cache.
GOLANGCI_LINT := go tool -modfile=tools/golangci-lint.mod golangci-lint

.PHONY: run build test test-go test-fuzz test-e2e test-e2e-fuzz bench bench-browser reliability check lint generate data eval clean help

## run: build, find or start PostgreSQL, and serve on http://127.0.0.1:8080
run: build
	@scripts/run.sh $(BIN)

## build: the strategist binary
build:
	go build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/server

## test: static checks, then two jobs at once: the Go tests against a real PostgreSQL, and the browser tests followed by the fuzzers
# The browser tests mostly wait (on Chromium, on the server's turns), so they
# run beside the Go tests rather than after them: on a two-core machine
# that saves most of their time. Each job's output is printed whole when
# the job ends (--output-sync), so the two never interleave; make stops at
# the first job that fails.
test: check
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-go test-e2e-fuzz

# test-e2e-fuzz is make test's second job: the browser tests, then the fuzzers.
test-e2e-fuzz: test-e2e
	@$(MAKE) --no-print-directory test-fuzz

## check: gofmt, go vet, generated templ code up to date, golangci-lint
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go tool templ generate -check -path . || { echo "templ output is stale: run make generate"; exit 1; }
	$(GOLANGCI_LINT) run ./...

## lint: golangci-lint alone (.golangci.yml: import rules, errcheck, staticcheck, govet, gocritic)
lint:
	$(GOLANGCI_LINT) run ./...

## test-go: Go tests (race detector, shuffled) on a real PostgreSQL and the gene data
# A binary built with -race sleeps a second when it exits (atexit_sleep_ms),
# so that threads still running can report a race: a second for each of some
# fifty test binaries. A race found while a test runs fails that test without
# it; only goroutines left running after the last test (which the goleak
# checks of the concurrent packages forbid) could report in that second.
# GORACE set by hand wins.
#
# The race detector finds races between goroutines; RACE_FREE lists the
# packages that start none and share no state (the request parser and the
# offline engine: TestRaceFreePackages holds them to it), whose tests it
# only slows sevenfold, so they run without it.
RACE_FREE := ./internal/english ./internal/rules
test-go:
	@source scripts/db.sh && find_database && \
	  source scripts/data-dir.sh && find_data_dir && \
	  export GORACE="$${GORACE:-atexit_sleep_ms=0}" && \
	  go test $(GO_TEST_FLAGS) $$(go list ./... | grep -vxF $(patsubst ./%,-e strategist/%,$(RACE_FREE))) && \
	  go test $(filter-out -race,$(GO_TEST_FLAGS)) $(RACE_FREE)

## test-fuzz: the fuzzers over every JSON body and over request parsing, a fixed number of inputs each
# The budgets are counts, not durations: Go 1.26's fuzzing coordinator can
# report its own -fuzztime deadline as a failure when the machine is loaded
# (golang/go#75804). The engine pauses (0 execs/s) while it shrinks each
# input that found new coverage, up to a minute each by default;
# FUZZ_MINIMIZE bounds that to a number of runs. FuzzParse ran 100,000
# inputs in 104 s on a quiet two-core machine (2026-12-03); the rewrite
# readers added later that day make Parse 39% slower (BenchmarkParse 920
# against 663 µs a request) and find more new coverage to shrink, and
# 50,000 inputs took 170 s, so its budget is 25,000.
FUZZ_SERVER_EXECS ?= 20000x
FUZZ_PARSE_EXECS ?= 25000x
FUZZ_MINIMIZE ?= 500x
test-fuzz:
	@source scripts/db.sh && find_database && \
	  go test -trimpath -run '^$$' -fuzz '^FuzzJSONBodies$$' -fuzztime $(FUZZ_SERVER_EXECS) -fuzzminimizetime $(FUZZ_MINIMIZE) ./internal/server/ && \
	  go test -trimpath -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZ_PARSE_EXECS) -fuzzminimizetime $(FUZZ_MINIMIZE) ./internal/english/

## test-e2e: browser tests: headless Chromium against the real server
test-e2e:
	@if [ -f tests/e2e/package.json ]; then scripts/e2e.sh; else echo "no browser tests yet"; fi

## bench: the speed figures beside their floors measured in the same run, as one table (bench.out keeps the raw output)
bench:
	@source scripts/db.sh && find_database && \
	  source scripts/data-dir.sh && find_data_dir && \
	  { go test -run '^$$' -bench 'PostToTurnStart' ./cmd/server/ && \
	    go test -run '^$$' -bench 'ToolCallCPU' -benchtime 10x ./cmd/server/ && \
	    go test -run '^$$' -bench 'DeliveryLatency|IdleStreamMemory' -benchtime 1x -timeout 15m ./cmd/server/ && \
	    go test -run '^$$' -bench 'StartTurnTx' -benchtime 300x ./internal/store/ && \
	    go test -run '^$$' -bench 'Append' ./internal/eventlog/ && \
	    go test -run '^$$' -bench 'ConversationPage' -benchmem ./web/ ; } 2>&1 | tee bench.out | grep -E '^(Benchmark|ok|FAIL|---)' ; \
	  go run ./tools/benchtable < bench.out

## bench-browser: the page's latency in headless Chromium (Enter to own message and first assistant text, Build to root count) beside floors from the same run, BENCH_RUNS runs (default 15)
bench-browser:
	@scripts/e2e.sh --test-name-pattern='^latency' measure.bench.js

## reliability: the reliability harness's short run (a few minutes): three replicas on a PostgreSQL of its own, a build struck by each fault (kill, deploy, database restart and stall, owner session ended)
reliability:
	@source scripts/data-dir.sh && find_data_dir && \
	  STRATEGIST_RELIABILITY=1 go test -count=1 -run '^TestReliabilityShortRun$$' -v -timeout 20m ./cmd/server/

## generate: regenerate templ components
generate:
	go tool templ generate -path .

## data: fetch the offline gene data into ./data (checksummed)
data:
	scripts/fetch-data.sh

## eval: score the server at STRATEGIST_URL (default http://127.0.0.1:8080, token STRATEGIST_TOKEN) on the evaluation set, by category; EVAL_FLAGS=--failures lists what went wrong
eval: build
	@source scripts/data-dir.sh && find_data_dir && $(BIN) eval $(EVAL_FLAGS)

## clean: remove built binaries
clean:
	rm -rf bin

## help: list the targets
help:
	@sed -n 's/^## \([^:]*\): \(.*\)/\1\t\2/p' $(MAKEFILE_LIST) | \
	  awk -F'\t' '{ printf "  %-13s %s\n", $$1, $$2 }'
