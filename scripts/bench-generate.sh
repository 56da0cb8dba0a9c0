#!/usr/bin/env bash
# bench-generate: full-range `numerology generate` wall time against `cp -r` of the very
# tree it produced, interleaved on the same disk in one run (median of N rounds), and the
# generator's peak RSS. Goal: generate/cp ≤ 1.0, peak RSS < 200 MB.
# Trees are kept until the end: deleting 150,000 files between rounds (on a disk mounted with
# discard) leaves the file system busy and would tax whichever command runs next.
set -euo pipefail
bin=$(realpath "${1:-bin/numerology}")
rounds=${ROUNDS:-5}
command -v /usr/bin/time >/dev/null || { echo "bench-generate: /usr/bin/time missing: apt-get install time" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-generate.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bin" generate --out "$work/warm" >/dev/null   # warm the binary and the page cache once
gen=() cp=() rss=()
for i in $(seq "$rounds"); do
	sync
	/usr/bin/time -f "%e %M" -o "$work/time" "$bin" generate --out "$work/gen$i" >/dev/null
	read -r g m <"$work/time"
	gen+=("$g") rss+=("$m")
	sync
	/usr/bin/time -f "%e" -o "$work/time" cp -r "$work/gen$i" "$work/cp$i"
	cp+=("$(cat "$work/time")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
g=$(median "${gen[@]}") c=$(median "${cp[@]}") r=$(median "${rss[@]}")
files=$(find "$work/warm" -type f | wc -l) bytes=$(du -sb "$work/warm" | cut -f1)
echo "tree: $files files, $((bytes / 1000000)) MB"
echo "generate wall (s): ${gen[*]}"
echo "cp -r wall (s):    ${cp[*]}"
awk -v g="$g" -v c="$c" -v r="$r" 'BEGIN {
	printf "median generate %.2fs, cp -r %.2fs: generate/cp = %.2fx (goal <= 1.00x)\n", g, c, g / c
	printf "generate peak RSS %.0f MB (goal < 200 MB)\n", r / 1024
}'
