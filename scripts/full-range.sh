#!/usr/bin/env bash
# Generates the full 1900–2100 tree once and verifies it, as CI does.
set -euo pipefail
bin=${1:-bin/numerology}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" generate --out "$dir/out"
"$bin" verify --dir "$dir/out"
