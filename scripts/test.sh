#!/usr/bin/env bash
# make test: everything CI runs, laid out as jobs side by side, so that the two tests that
# must wait out the contract's real minute (one per edge) start first and wait while the
# rest works, and a tool being installed holds up only the tests that drive it:
#
#   realwindow  the Go server's real-window test (edge/server/realwindow)
#   check       make check
#   tree        the full 1900–2100 tree, generated and verified (make test-tree)
#   wranglerdev the worker's npm packages, then its wrangler dev test (edge/worker/wranglerdev)
#   clients     the OpenAPI client generators' npm packages, then (once the tree is made)
#               generator/openapitest
#   pages       Chromium, Java and the Nu Html Checker, then (once the tree is made)
#               templates/browsertest
#   mcp         the MCP test tools' npm packages, then (once the worker's are in and the tree
#               is made) edge/mcptest: the official SDK clients and conformance suite against
#               both edges, and every record of the tree through the TypeScript SDK's validator
#   main        once the tree and the worker's packages are in: every other package, with
#               20,000 inputs of fuzzing the content loader beside it
#
# Every Go test runs with no skip allowed (NUMEROLOGY_TEST_NO_SKIP). The full tree is shared
# by the tests that need every date (generatortest.FullTree reads NUMEROLOGY_TEST_FULL_TREE).
# It lives in a scratch folder on a memory file system when the machine has one with room,
# where writing its 228,000 files costs seconds rather than most of a minute, and is removed
# at the end. Each job's output is printed whole when the run ends, with its times.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
make=${MAKE:-make}

# The scratch folder: tmpfs with room for the full tree (under 1 GB) and the tests' own
# trees, else .cache/ on the disk.
scratch=""
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
	[ "$(df --output=avail -B1 /dev/shm 2>/dev/null | tail -1)" -gt $((3 << 30)) ]; then
	scratch=$(mktemp -d /dev/shm/numerology-make-test-XXXXXX)
else
	mkdir -p .cache
	scratch=$(mktemp -d "$PWD/.cache/make-test-XXXXXX")
fi
trap 'rm -rf "$scratch"' EXIT
tree=$scratch/tree
logs=$scratch/logs
mkdir -p "$logs"

export NUMEROLOGY_TEST_NO_SKIP=1 NUMEROLOGY_TEST_FULL_TREE="$tree"

# The packages that wait out a real minute run in jobs of their own, started first.
realwindow=./edge/server/realwindow
wranglerdev=./edge/worker/wranglerdev

# Background jobs: start NAME CMD... runs CMD with its output in $logs/NAME; finish NAME
# waits for it and records its status and time.
declare -A pid began took status
order=()
start() {
	local name=$1
	shift
	began[$name]=$SECONDS
	order+=("$name")
	(
		rc=0
		"$@" || rc=$?
		echo "$SECONDS" >"$logs/$name.end"
		times >"$logs/$name.cpu" # its second line: user and system time of what it ran
		exit "$rc"
	) >"$logs/$name" 2>&1 &
	pid[$name]=$!
}
finish() {
	local name=$1 rc=0
	wait "${pid[$name]}" || rc=$?
	status[$name]=$rc
	took[$name]=$(($(cat "$logs/$name.end" 2>/dev/null || echo "$SECONDS") - ${began[$name]}))
	return "$rc"
}

# Several test binaries and parallel tests at once, more than cores: many tests wait on
# servers, browsers, Node or a clock rather than compute. The tree comes first of what
# computes (every job but the real-minute ones waits for it), and the jobs whose time
# matters least (check, the npm installs) run niced.
# The test binaries are linked without DWARF (-ldflags=-w): no debugger reads them here, stack
# traces and file:line of failures come from the runtime's own tables, and linking twenty-odd
# binaries without it costs a quarter less CPU. Each test process (and each numerology it
# starts) runs Go code on one thread (GOMAXPROCS=1): a dozen processes share the two cores
# for the whole run, and with a thread per core each, their collectors and idle threads
# spent about an eighth more CPU for the same tests (docs/bench.md, make test). go test's
# own vet pass is off (-vet=off): the check job's go vet ./... runs all of go vet's default
# analyzers over the same packages and their tests, a superset of the ten go test runs, and
# on a cold build cache go test's pass cost about 25 s of CPU for nothing new it could find.
gotest=(env GOMAXPROCS=1 "$go" test -count=1 -vet=off -parallel 8 -timeout 10m -ldflags=-w)
later=(nice -n 10)

# after NAME waits until job NAME has ended well (its .ok mark), or fails when it failed.
after() {
	until [ -f "$logs/$1.ok" ]; do
		[ ! -f "$logs/$1.end" ] || { echo "not run: job $1 failed"; return 1; }
		sleep 0.2
	done
}
# tools_then_test DIR PKG installs the npm project DIR (and its Debian packages), niced so
# that the worker's install (which main and the wrangler dev test wait for) goes first, then
# tests PKG once the tree is made.
tools_then_test() {
	"${later[@]}" scripts/test-tools.sh "$1" && after tree && "${gotest[@]}" "$2"
}

start realwindow "${gotest[@]}" "$realwindow"
start tree sh -c '"$@" && touch "$0"' "$logs/tree.ok" "$make" --no-print-directory test-tree TEST_TREE="$tree"
start wranglerdev sh -c 'scripts/test-tools.sh edge/worker && touch "$0" && "$@"' \
	"$logs/worker-tools.ok" "${gotest[@]}" "$wranglerdev"
start check "${later[@]}" "$make" --no-print-directory check
# mcp_job installs edge/mcptest's npm project, then tests it once the worker's packages
# (whose Node runs the worker beside serve) are in and the full tree is made.
mcp_job() {
	"${later[@]}" scripts/test-tools.sh edge/mcptest || return 1
	until [ -f "$logs/worker-tools.ok" ]; do
		[ ! -f "$logs/wranglerdev.end" ] || { echo "not run: the worker's npm packages failed"; return 1; }
		sleep 0.2
	done
	after tree && "${gotest[@]}" ./edge/mcptest
}
start mcp mcp_job
start clients tools_then_test generator/openapitest/clients ./generator/openapitest
start pages tools_then_test templates/browsertest ./templates/browsertest
start pack tools_then_test generator/pack/packtest ./generator/pack

ready=0
finish tree || ready=1
# edge/worker's own tests need the worker's npm packages (the wranglerdev job installs them
# first).
until [ -f "$logs/worker-tools.ok" ]; do
	kill -0 "${pid[wranglerdev]}" 2>/dev/null || { ready=1; break; }
	sleep 0.2
done

main=0
if [ "$ready" -eq 0 ]; then
	# Bounded: 20,000 inputs of fuzzing the content loader, on one worker (about a second of
	# a core); an input that hangs the YAML library fails within two minutes instead of
	# holding CI. A count, not a time: with -fuzztime=10s the coordinator's deadline races
	# its worker's last input (go.dev/issue/75804, fixed in Go 1.27), which failed a run
	# with a bare "context deadline exceeded" and no input written; and niced beside the
	# other jobs, ten seconds had come to 72 inputs. Not niced, so that the count ends.
	start fuzz "$go" test -vet=off -run='^$' -fuzz=FuzzLoad -fuzztime=20000x -fuzzminimizetime=2s -parallel=1 -timeout 2m ./content/
	# Every other package, the longest first: go test starts the packages it is given in
	# that order, at most -p at a time, and the generator's tests (a minute and a half under
	# this load), started after the first four in go list's order, ran alone for the last
	# twenty seconds while the machine idled beside them. Any package not named in first
	# follows in go list's order.
	first=(./generator ./cmd/numerology ./edge/worker ./edge/server ./edge/cloudflare)
	mapfile -t skip < <("$go" list "$realwindow" "$wranglerdev" ./generator/openapitest ./templates/browsertest ./edge/mcptest ./generator/pack "${first[@]}")
	mapfile -t pkgs < <("$go" list ./... | grep -v -x -F "${skip[@]/#/-e}")
	pkgs=("${first[@]}" "${pkgs[@]}")
	main_began=$SECONDS
	(
		rc=0
		"${gotest[@]}" -p 4 "${pkgs[@]}" || rc=$?
		times >"$logs/main.cpu"
		exit "$rc"
	) || main=$?
	echo "== main (every other package): $((SECONDS - main_began)) s (from $main_began s; CPU user, system: $(sed -n 2p "$logs/main.cpu")), exit $main"
	finish fuzz || true
else
	echo "== main (every other package): not run, the full tree or the worker's npm packages failed (below)"
	main=1
fi
# Only main's tests and mcp's read the full tree: once both have ended it is removed while
# the other jobs end (removing its files took the run's last three seconds, alone).
finish mcp || true
rm -rf "$tree" &
removed=$!
for name in realwindow check wranglerdev clients pages pack; do
	finish "$name" || true
done
wait "$removed" || true

failed=$main
for name in "${order[@]}"; do
	echo "== $name: ${took[$name]} s (from ${began[$name]} s; CPU user, system: $(sed -n 2p "$logs/$name.cpu" 2>/dev/null)), exit ${status[$name]}"
	cat "$logs/$name"
	[ "${status[$name]}" -eq 0 ] || failed=1
done
echo "== make test: $SECONDS s"
exit "$failed"
