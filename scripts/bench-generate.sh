#!/usr/bin/env bash
# bench-generate: full-range `numerology generate` wall time against `cp -r` of the very
# tree it produced, interleaved in one run (ROUNDS rounds, default 5), and the generator's
# peak RSS; measured on the disk (TMPDIR) and on tmpfs (/dev/shm), where the disk's noise
# does not swamp the program's own cost (LOCATIONS="disk tmpfs" by default). Prints the
# tree's files and bytes, each round's times and generate/cp ratio, and the median with the
# range (min–max) of the ratios and of the peak RSS. Goals: generate/cp <= 0.5 on tmpfs,
# peak RSS <= 200 MB. The tree includes the packed files and the manifest's shards; cp
# copies them too.
#
# Usage: scripts/bench-generate.sh [bin/numerology [bin/numerology-ten]]: the second binary,
# built with the tag "synthetic" (make bench-generate builds it), has synthetic date routes
# packed by year beside the real ones, ten in all (issue 26); it is measured the same way.
#
# On the disk the trees are kept until the end of the location: deleting 230,000 files
# between rounds (on a disk mounted with discard) leaves the file system busy and would tax
# whichever command runs next. On tmpfs each round's two trees are deleted after it (a
# ten-route tree is 2.4 GB, and memory is the file system's room).
set -euo pipefail
bin=$(realpath "${1:-bin/numerology}")
ten=${2:+$(realpath "$2")}
rounds=${ROUNDS:-5}
locations=${LOCATIONS:-disk tmpfs}
[ "$rounds" -ge 3 ] || { echo "bench-generate: ROUNDS=$rounds: want at least 3" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench-generate: /usr/bin/time missing: apt-get install time" >&2; exit 1; }
work=""
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
lowest() { printf '%s\n' "$@" | sort -g | head -1; }
highest() { printf '%s\n' "$@" | sort -g | tail -1; }

# bench BIN PARENT LABEL: the rounds of BIN in a new directory under PARENT.
bench() {
	local bin=$1 parent=$2 label=$3 gen=() cp=() rss=() ratio=() g m c files bytes
	work=$(mktemp -d "$parent/bench-generate.XXXXXX")
	"$bin" generate --out "$work/warm" >/dev/null # warm the binary and the page cache once
	for i in $(seq "$rounds"); do
		sync
		/usr/bin/time -f "%e %M" -o "$work/time" "$bin" generate --out "$work/gen$i" >/dev/null
		read -r g m <"$work/time"
		gen+=("$g") rss+=("$((m / 1024))")
		sync
		/usr/bin/time -f "%e" -o "$work/time" cp -r "$work/gen$i" "$work/cp$i"
		c=$(cat "$work/time")
		cp+=("$c") ratio+=("$(awk -v g="$g" -v c="$c" 'BEGIN { printf "%.2f", g / c }')")
		[ "$label" = "${label%tmpfs*}" ] || rm -rf "$work/gen$i" "$work/cp$i"
	done
	files=$(find "$work/warm" -type f | wc -l) bytes=$(du -sb "$work/warm" | cut -f1)
	echo "== $label ($(df --output=fstype "$work" | tail -1), $parent)"
	echo "tree: $files files, $((bytes / 1000000)) MB; manifest.json $(stat -c %s "$work/warm/manifest.json") bytes"
	echo "generate wall (s):  ${gen[*]}"
	echo "cp -r wall (s):     ${cp[*]}"
	echo "generate/cp:        ${ratio[*]}"
	echo "peak RSS (MiB):     ${rss[*]}"
	echo "median generate $(median "${gen[@]}")s, cp -r $(median "${cp[@]}")s;" \
		"generate/cp median $(median "${ratio[@]}")x ($(lowest "${ratio[@]}")–$(highest "${ratio[@]}")x; goal <= 0.50x on tmpfs)"
	echo "generate peak RSS median $(median "${rss[@]}") MiB ($(lowest "${rss[@]}")–$(highest "${rss[@]}"); goal <= 200 MB)"
	rm -rf "$work"
	work=""
}

for b in "$bin" $ten; do
	routes="the build's date routes"
	[ "$b" = "$bin" ] || routes="ten date routes"
	for loc in $locations; do
		case $loc in
		disk) bench "$b" "${TMPDIR:-/tmp}" "$routes, disk" ;;
		tmpfs)
			if [ -d /dev/shm ] && [ -w /dev/shm ]; then
				bench "$b" /dev/shm "$routes, tmpfs"
			else
				echo "== tmpfs: /dev/shm is missing or not writable: not measured" >&2
				exit 1
			fi
			;;
		*) echo "bench-generate: LOCATIONS: unknown $loc (want disk, tmpfs)" >&2; exit 2 ;;
		esac
	done
done
