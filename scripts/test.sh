#!/usr/bin/env bash
# make test: everything CI runs, laid out so that the two tests that must wait out the
# contract's real minute (one per edge) start first and wait while the rest works:
#
#   at once, side by side:  the Go server's real-window test (edge/server/realwindow)
#                           make check
#                           the full 1900–2100 tree, generated and verified (make test-tree)
#                           the npm projects and Debian packages the tests drive
#   once the worker's npm   the worker's wrangler dev test (edge/worker/wranglerdev)
#   packages are in:
#   once tree and tools     every other Go test, and 10 s of fuzzing the content loader
#   are ready:
#
# Every Go test runs with no skip allowed (NUMEROLOGY_TEST_NO_SKIP). The full tree is shared
# by the tests that need every date (generatortest.FullTree reads NUMEROLOGY_TEST_FULL_TREE).
# It lives in a scratch folder on a memory file system when the machine has one with room,
# where writing its 228,000 files costs seconds rather than most of a minute, and is removed
# at the end. Each job's output is printed whole when the run ends, with its time.
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

start realwindow "$go" test -count=1 -parallel 8 "$realwindow"
start check "$make" --no-print-directory check
start tree "$make" --no-print-directory test-tree TEST_TREE="$tree"
start tools scripts/test-tools.sh generator/openapitest/clients templates/browsertest
start wranglerdev sh -c "scripts/test-tools.sh edge/worker && touch \"$logs/worker-tools.ok\" && \"$go\" test -count=1 -parallel 8 $wranglerdev"

ready=0
finish tools || ready=1
finish tree || ready=1
# The worker's own npm packages (the wranglerdev job installs them first) are needed by
# edge/worker's tests too.
until [ -f "$logs/worker-tools.ok" ]; do
	kill -0 "${pid[wranglerdev]}" 2>/dev/null || { ready=1; break; }
	sleep 0.2
done

main=0
if [ "$ready" -eq 0 ]; then
	# Bounded: 10 s of fuzzing the content loader, on one worker, beside the tests; an input
	# that hangs the YAML library fails within two minutes instead of holding CI.
	start fuzz "$go" test -run='^$' -fuzz=FuzzLoad -fuzztime=10s -fuzzminimizetime=2s -parallel=1 -timeout 2m ./content/
	# More test binaries and parallel tests at once than cores: many tests wait on servers,
	# browsers and Node rather than compute.
	mapfile -t pkgs < <("$go" list ./... | grep -v -x -e "$("$go" list "$realwindow")" -e "$("$go" list "$wranglerdev")")
	main_began=$SECONDS
	"$go" test -count=1 -p 4 -parallel 8 -timeout 10m "${pkgs[@]}" || main=$?
	echo "== go test (all other packages): $((SECONDS - main_began)) s (from $main_began s)"
	finish fuzz || true
else
	echo "== go test (all other packages): not run, the full tree or the tools failed (below)"
	main=1
fi
for name in realwindow check wranglerdev; do
	finish "$name" || true
done

failed=$main
for name in "${order[@]}"; do
	echo "== $name: ${took[$name]} s (from $((${began[$name]})) s), exit ${status[$name]}"
	cat "$logs/$name"
	[ "${status[$name]}" -eq 0 ] || failed=1
done
echo "== make test: $SECONDS s"
exit "$failed"
