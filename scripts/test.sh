#!/usr/bin/env bash
# make test's Go part, on the full-range tree make test-tree generated and verified (its
# path is the first argument). The tree is shared by every test that needs every date
# (generatortest.FullTree reads NUMEROLOGY_TEST_FULL_TREE) and removed at the end. Every Go
# test runs with no skip allowed (NUMEROLOGY_TEST_NO_SKIP); beside them, the content loader
# is fuzzed for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:?usage: scripts/test.sh <full-range tree>}
go=${GO:-go}
fuzzlog=$(mktemp)
trap 'rm -rf "$tree" "$fuzzlog"' EXIT
[ -f "$tree/manifest.json" ] || { echo "scripts/test.sh: $tree is not a generated tree (run make test-tree)" >&2; exit 1; }
tree=$(cd "$tree" && pwd) # the tests run in their packages' folders

# Bounded: 20 s of fuzzing the content loader, on one worker, beside the tests; an input that
# hangs the YAML library fails within two minutes instead of holding CI.
"$go" test -run='^$' -fuzz=FuzzLoad -fuzztime=20s -fuzzminimizetime=2s -parallel=1 -timeout 2m ./content/ >"$fuzzlog" 2>&1 &
fuzz=$!

# More test binaries at once than cores: the tests that wait out a real rate window (one per
# edge) then overlap with the others' work instead of holding a slot idle.
export NUMEROLOGY_TEST_FULL_TREE="$tree" NUMEROLOGY_TEST_NO_SKIP=1
status=0
"$go" test -count=1 -p 4 -timeout 15m ./... || status=$?

fuzzstatus=0
wait "$fuzz" || fuzzstatus=$?
echo "== fuzzing the content loader"
cat "$fuzzlog"
[ "$status" -eq 0 ] || exit "$status"
exit "$fuzzstatus"
