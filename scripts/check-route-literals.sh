#!/usr/bin/env bash
# The edges route from the route table the generator emits (docs/design.md §3, §9): no
# non-test edge source may name a route or an error key. The forms to look for come from the
# table and the edge config themselves (scripts/routeliterals), so a new route or error is
# covered without editing this script. The conformance suite tests behaviour and may hold
# paths.
set -euo pipefail
cd "$(dirname "$0")/.."
patterns=$(go run ./scripts/routeliterals)
if [ -z "$patterns" ]; then
	echo "check-route-literals: the route table gave no literals" >&2
	exit 1
fi
files=$(find edge/server edge/worker/src -maxdepth 1 -type f \( -name '*.go' -o -name '*.js' \) ! -name '*_test.go' | sort)
if [ -z "$files" ]; then
	echo "check-route-literals: no edge sources found" >&2
	exit 1
fi
# shellcheck disable=SC2086 # one file a word
if hits=$(grep -nF -e "$patterns" $files); then
	echo "route literals or error keys in edge sources (take them from edge.json instead):" >&2
	echo "$hits" >&2
	exit 1
fi
# Generate, verify and pack take tree and API paths from the route table and the manifest's
# names (Route.File, Packed, RoutePath, manifest.APIDir, …), never from a path written by hand
# (scripts/routeliterals -tree). The route table's rows, one per route in its family's file
# (generator/family_*.go), are where the paths are written: a row's Pattern and File (the line
# with `Name:`) and its Packed file (the line with `Params:`) are the only lines let through.
patterns=$(go run ./scripts/routeliterals -tree)
if [ -z "$patterns" ]; then
	echo "check-route-literals: the route table gave no tree forms" >&2
	exit 1
fi
files=$(find generator generator/pack cmd/numerology -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' | sort -u)
if [ -z "$files" ]; then
	echo "check-route-literals: no generate, verify or pack sources found" >&2
	exit 1
fi
# shellcheck disable=SC2086 # one file a word
row='^generator/family_[a-z]+\.go:[0-9]+:[[:space:]]+(Name: [^,]+, Pattern: [^,]+, File: "[^"]+",|Params: [^,]+, Packed: &manifest\.Packed\{File: "[^"]+")'
# shellcheck disable=SC2086 # one file a word
if hits=$(grep -nE -e "$patterns" $files | grep -vE "$row"); then
	echo "tree or API paths written by hand in generate, verify or pack (take them from the route table or the manifest's names):" >&2
	echo "$hits" >&2
	exit 1
fi
