# Tributary: every target also takes its variables on the command line,
# e.g. `make ingest SRC=data/sample DUCKDB_PATH=/tmp/t.duckdb`.
SHELL := /bin/bash
TSX   := node --import tsx

# Every target runs on the Node.js that package.json's engines.node pins: scripts/node.sh installs it once per machine
# from the npm registry (or takes the node on PATH: that exact version, or any of its major line with
# USE_SYSTEM_NODE=1) and refuses another major version. Child processes inherit it through PATH and process.execPath.
NODE_BIN := $(shell bash scripts/node.sh)
ifeq ($(NODE_BIN),)
$(error no Node.js to run on: scripts/node.sh said why above)
endif
export PATH := $(NODE_BIN):$(PATH)
# Native addons, should a dependency build one, compile against the headers of the Node they run on. node-gyp reads
# its options from npm_package_config_node_gyp_*; npm_config_nodedir did the same but npm 11 warns about it on every
# call (nodedir is node-gyp's option, not npm's), and npm 12 refuses it.
export npm_package_config_node_gyp_nodedir := $(abspath $(NODE_BIN)/..)

export DUCKDB_PATH ?= data/tributary.duckdb
export OUT         ?= data/sample
# Ingest reads what the generator wrote unless told otherwise.
export SRC         ?= $(OUT)
export API_PORT    ?= 3000
export PORT        ?= 8080

.PHONY: install build start test sample ingest remove compact api replicas board board-migrate bench bench-compare bench-replicas key-issue key-list key-revoke

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.package-lock.json

# The data API and the ingest job run as JavaScript compiled by tsc, not through tsx: tsx's loader thread costs
# RSS in every process, and its start time in every small publish (docs/performance.md, Alternatives measured and
# rejected). Rebuilt whenever a source under services/, ingest/ or schemas/ changes; npm ci wipes it with node_modules.
# Scripts keep running through tsx.
# `npm run build` (package.json) writes it: containers without make build the same way (docker-compose.yml).
BUILD := node_modules/.cache/tributary
export API_MAIN := $(BUILD)/services/api/main.js
export INGEST_MAIN := $(BUILD)/ingest/main.js
# The same build bundles the explorer page (/explore) with esbuild into $(BUILD)/explore (scripts/build/build-explore.ts).
$(API_MAIN): node_modules/.package-lock.json tsconfig.json scripts/build/build-explore.ts $(shell find services ingest schemas -type f \( -name '*.ts' -o -name '*.json' -o -name '*.css' \) -not -name '*.test.ts')
	npm run --silent build
	@touch $@

build: $(API_MAIN)

# Embedded defaults: sample data and a DuckDB file on first run, PGlite for the board.
start: install build
	$(TSX) scripts/ops/start.ts

# Starts PostgreSQL and Redis, and installs what the tests run when missing: Chromium, xmllint, docker-compose, HAProxy,
# redis-server, GDAL and OWSLib from Debian's packages, pandas, pyarrow and duckdb with pip.
# tsc runs beside vitest, its output held until vitest ends: it is one thread, and vitest leaves a core idle while its
# globalSetup builds the fixture. Either failing fails the target.
test: install
	bash scripts/test-deps.sh
	@log=$$(mktemp); npx tsc --noEmit >$$log 2>&1 & tsc=$$!; \
	npx vitest run --config scripts/vitest.config.ts; vitest=$$?; \
	wait $$tsc; typecheck=$$?; cat $$log; rm -f $$log; \
	if [ $$typecheck -ne 0 ]; then echo 'make test: tsc --noEmit failed' >&2; exit $$typecheck; fi; exit $$vitest

sample: install
	$(TSX) scripts/sample/main.ts

ingest: build
	node $(INGEST_MAIN) ingest

remove: build
	@test -n "$(DOI)" || { echo "usage: make remove DOI=10.x/yyyy" >&2; exit 2; }
	node $(INGEST_MAIN) remove "$(DOI)"

# Rewrites DUCKDB_PATH as a first ingest would (same rows, Ids, statistics), reclaiming what removed and replaced
# datasets left; published atomically like any change (docs/storage.md).
compact: build
	node $(INGEST_MAIN) compact

api: build
	node $(API_MAIN)

# N API replicas behind HAProxy on API_PORT, sharing Redis (REDIS_URL) and the publication store (docs/deployment.md).
replicas: build
	$(TSX) scripts/ops/replicas/main.ts

board: install
	$(TSX) services/board/main.ts

board-migrate: install
	$(TSX) services/board/migrate.ts

bench: install build
	$(TSX) scripts/bench/main.ts

# Two bench results side by side, figure by figure (a change measured before and after): BEFORE=… AFTER=… (JSON files).
bench-compare: install
	@$(TSX) scripts/bench/compare.ts

# The replicated topology's costs: limiter (Redis vs in process), HAProxy overhead, extract and paced load with
# 1 and 3 replicas (docs/deployment.md). Own redis-server on a free port; ROWS, LOAD_SECONDS.
bench-replicas: install build
	$(TSX) scripts/ops/replicas/bench.ts

key-issue: install
	@test -n "$(OWNER)" || { echo "usage: make key-issue OWNER=alice@example.org" >&2; exit 2; }
	@$(TSX) scripts/ops/keys.ts issue "$(OWNER)"

key-list: install
	@$(TSX) scripts/ops/keys.ts list

key-revoke: install
	@test -n "$(ID)" || { echo "usage: make key-revoke ID=<key id>" >&2; exit 2; }
	@$(TSX) scripts/ops/keys.ts revoke "$(ID)"
