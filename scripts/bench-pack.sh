#!/usr/bin/env bash
# Benchmarks numerology pack of the full range against `tar czf` (gzip's default level 6) of
# the files it archives, in the same run, rounds alternating (the machine may be shared):
# pack's median wall time should be at most 1.0× tar's, and its peak RSS at most 200 MB.
# It also reports the CPU time (user + system) of each, whose ratio moves less than the wall
# times' when other work shares the machine.
# "The files it archives" are the dataset's own files, extracted from a first pack: the
# zip's files, and each date route's JSON Lines unzipped. It also checks that every pack
# gives byte-identical downloads, and reports each download's size against the 25 MiB a
# Workers static asset may hold. Scratch space is on tmpfs (/dev/shm) when there is one.
set -euo pipefail
bin=${1:-bin/numerology}
rounds=${ROUNDS:-3}
scratch=${TMPDIR:-/tmp}
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] || scratch=/dev/shm
dir=$(mktemp -d "$scratch/bench-pack-XXXXXX")
trap 'rm -rf "$dir"' EXIT
unset GZIP
command -v unzip >/dev/null || { echo "bench-pack: unzip not found (Debian: apt-get install unzip)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-pack: /usr/bin/time not found (Debian: apt-get install time)" >&2; exit 1; }

# BENCH_TREE names a full tree generated already (it is not changed: pack --publish=false).
tree=${BENCH_TREE:-$dir/out}
if [ -z "${BENCH_TREE:-}" ]; then
	echo "bench-pack: generating the full tree in $dir"
	"$bin" generate --out "$tree" >/dev/null
fi
"$bin" pack --dir "$tree" --to "$dir/first" --publish=false >/dev/null
mkdir "$dir/files"
unzip -q "$dir"/first/*.zip -d "$dir/files"
for f in "$dir"/first/*.jsonl.gz; do
	gzip -dc "$f" >"$dir/files/$(basename "$f" .gz)"
done
echo "bench-pack: tar czf archives $(du -sb "$dir/files" | cut -f1) bytes in $(find "$dir/files" -type f | wc -l) files"

# timed runs print "wall peak-RSS-KB cpu" into $dir/t
timed() { /usr/bin/time -f '%e %M %U %S' -o "$dir/t" "$@" >/dev/null 2>&1; awk '{print $1, $2, $3 + $4}' "$dir/t"; }
pack_w=() tar_w=() pack_m=() pack_c=() tar_c=()
for i in $(seq "$rounds"); do
	rm -rf "$dir/dist" "$dir/ref.tar.gz"
	# Alternate which goes first, so that neither always meets the same neighbours.
	if [ $((i % 2)) -eq 1 ]; then
		read -r tw _ tc < <(timed tar czf "$dir/ref.tar.gz" -C "$dir" files)
		read -r pw pm pc < <(timed "$bin" pack --dir "$tree" --to "$dir/dist" --publish=false)
	else
		read -r pw pm pc < <(timed "$bin" pack --dir "$tree" --to "$dir/dist" --publish=false)
		read -r tw _ tc < <(timed tar czf "$dir/ref.tar.gz" -C "$dir" files)
	fi
	[ -s "$dir/ref.tar.gz" ] && ls "$dir"/dist/*.zip >/dev/null || { echo "bench-pack: a run failed" >&2; exit 1; }
	tar_w+=("$tw") pack_w+=("$pw") pack_m+=("$pm") tar_c+=("$tc") pack_c+=("$pc")
	printf 'round %d: tar czf %.2fs, numerology pack %.2fs (ratio %.2f), pack peak RSS %d MB; CPU %.2fs and %.2fs (ratio %.2f)\n' "$i" "$tw" "$pw" "$(echo "scale=3; $pw / $tw" | bc)" $((pm / 1024)) "$tc" "$pc" "$(echo "scale=3; $pc / $tc" | bc)"
	for f in "$dir"/first/*; do
		cmp -s "$f" "$dir/dist/$(basename "$f")" || { echo "NOT reproducible: $(basename "$f") differs between packs" >&2; exit 1; }
	done
done
echo "reproducible: every pack gave byte-identical downloads"

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
spread() { printf '%s\n' "$@" | sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.2f–%.2f", lo, hi}'; }
tm=$(median "${tar_w[@]}") pm=$(median "${pack_w[@]}") rss=$(median "${pack_m[@]}")
ratios=()
for i in "${!tar_w[@]}"; do ratios+=("$(echo "scale=3; ${pack_w[$i]} / ${tar_w[$i]}" | bc)"); done
ratio=$(echo "scale=3; $pm / $tm" | bc)
echo
printf 'median wall time of %d rounds: tar czf %.2fs (%s), numerology pack %.2fs (%s): ratio %.2f (per round %s; target ≤ 1.00)\n' \
	"$rounds" "$tm" "$(spread "${tar_w[@]}")" "$pm" "$(spread "${pack_w[@]}")" "$ratio" "$(spread "${ratios[@]}")"
tcm=$(median "${tar_c[@]}") pcm=$(median "${pack_c[@]}")
printf 'median CPU time (user + system): tar czf %.2fs (%s), numerology pack %.2fs (%s): ratio %.2f\n' \
	"$tcm" "$(spread "${tar_c[@]}")" "$pcm" "$(spread "${pack_c[@]}")" "$(echo "scale=3; $pcm / $tcm" | bc)"
printf 'median peak RSS of pack: %d MB (%s MB; target ≤ 200)\n' $((rss / 1024)) "$(printf '%s\n' "${pack_m[@]}" | awk '{print int($1 / 1024)}' | paste -sd, -)"
limit=$((25 << 20))
echo "downloads (limit 25 MiB = $limit bytes):"
ok=1
for f in "$dir"/first/*; do
	size=$(stat -c %s "$f")
	printf '  %-36s %10d bytes  %5.1f%% of 25 MiB\n' "$(basename "$f")" "$size" "$(echo "scale=3; 100 * $size / $limit" | bc)"
	[ "$size" -le "$limit" ] || { echo "bench-pack: $(basename "$f") is over 25 MiB" >&2; ok=0; }
done
printf '  tar czf of the same files: %d bytes\n' "$(stat -c %s "$dir/ref.tar.gz")"
[ "$(echo "$ratio <= 1.0" | bc)" = 1 ] || { echo "bench-pack: pack's median is slower than tar czf's" >&2; ok=0; }
[ $((rss / 1024)) -le 200 ] || { echo "bench-pack: pack's peak RSS is over 200 MB" >&2; ok=0; }
[ "$ok" = 1 ]
