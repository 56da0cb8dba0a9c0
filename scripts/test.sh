#!/usr/bin/env bash
# make test's Go part. The full-range tree (1900–2100) is generated and verified once, as a
# publisher's CI would, and shared by every test that needs every date
# (generatortest.FullTree reads NUMEROLOGY_TEST_FULL_TREE); then every Go test runs with no
# skip allowed (NUMEROLOGY_TEST_NO_SKIP), and the content loader is fuzzed for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/numerology}
go=${GO:-go}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$bin" generate --out "$dir/out"
"$bin" verify --dir "$dir/out"

export NUMEROLOGY_TEST_FULL_TREE="$dir/out" NUMEROLOGY_TEST_NO_SKIP=1
"$go" test -count=1 -timeout 15m ./...
# Bounded: 20 s of fuzzing the content loader; an input that hangs the YAML library fails
# within two minutes instead of holding CI.
"$go" test -run='^$' -fuzz=FuzzLoad -fuzztime=20s -fuzzminimizetime=2s -timeout 2m ./content/
