#!/usr/bin/env bash
# bench-generate: full-range `numerology generate` wall time against `cp -r` of the very
# tree it produced, interleaved in one run (median of N rounds), and the generator's peak
# RSS; measured twice: on the disk (TMPDIR) and on tmpfs (/dev/shm), where the disk's noise
# does not swamp the program's own cost. Goal: generate/cp <= 1.0 on both, peak RSS < 200 MB.
# The tree includes the packed month files (api/public/matrix-months/); cp copies them too.
# Trees are kept until the end of each location: deleting 150,000 files between rounds (on a
# disk mounted with discard) leaves the file system busy and would tax whichever command
# runs next.
set -euo pipefail
bin=$(realpath "${1:-bin/numerology}")
rounds=${ROUNDS:-5}
command -v /usr/bin/time >/dev/null || { echo "bench-generate: /usr/bin/time missing: apt-get install time" >&2; exit 1; }
work=""
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# bench PARENT LABEL: the rounds in a new directory under PARENT.
bench() {
	local parent=$1 label=$2 gen=() cp=() rss=() g m c r files bytes
	work=$(mktemp -d "$parent/bench-generate.XXXXXX")
	"$bin" generate --out "$work/warm" >/dev/null # warm the binary and the page cache once
	for i in $(seq "$rounds"); do
		sync
		/usr/bin/time -f "%e %M" -o "$work/time" "$bin" generate --out "$work/gen$i" >/dev/null
		read -r g m <"$work/time"
		gen+=("$g") rss+=("$m")
		sync
		/usr/bin/time -f "%e" -o "$work/time" cp -r "$work/gen$i" "$work/cp$i"
		cp+=("$(cat "$work/time")")
	done
	g=$(median "${gen[@]}") c=$(median "${cp[@]}") r=$(median "${rss[@]}")
	files=$(find "$work/warm" -type f | wc -l) bytes=$(du -sb "$work/warm" | cut -f1)
	echo "== $label ($(df --output=fstype "$work" | tail -1), $parent)"
	echo "tree: $files files, $((bytes / 1000000)) MB"
	echo "generate wall (s): ${gen[*]}"
	echo "cp -r wall (s):    ${cp[*]}"
	awk -v g="$g" -v c="$c" -v r="$r" 'BEGIN {
		printf "median generate %.2fs, cp -r %.2fs: generate/cp = %.2fx (goal <= 1.00x)\n", g, c, g / c
		printf "generate peak RSS %.0f MB (goal < 200 MB)\n", r / 1024
	}'
	rm -rf "$work"
	work=""
}

bench "${TMPDIR:-/tmp}" "disk"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	bench /dev/shm "tmpfs"
else
	echo "== tmpfs: /dev/shm is missing or not writable: not measured" >&2
	exit 1
fi
