#!/usr/bin/env bash
# Benchmarks numerology pack against `tar czf` (gzip's default level 6) of the same files, in
# the same run: pack's wall time should be at most 1.2× tar's, and its .tar.gz no larger.
# "The same files" are the dataset's own files (the API's JSON tree, the CSVs and documents),
# extracted from a first pack, so tar compresses exactly what pack archives.
set -euo pipefail
bin=${1:-bin/numerology}
rounds=${ROUNDS:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unset GZIP

echo "bench-pack: generating the full tree"
"$bin" generate --out "$dir/out" >/dev/null
"$bin" pack --dir "$dir/out" --to "$dir/first" --publish=false >/dev/null
name=$(basename "$dir"/first/*.tar.gz .tar.gz)
mkdir "$dir/files"
tar xzf "$dir/first/$name.tar.gz" -C "$dir/files"

# timed runs print "wall user sys" (bash's time keyword, children included) into $dir/t
TIMEFORMAT='%R %U %S'
timed() { { time "$@" >/dev/null 2>&1; } 2>"$dir/t"; cat "$dir/t"; }
pack_times=() tar_times=() tar_cpu=0 pack_cpu=0
for i in $(seq "$rounds"); do
	rm -rf "$dir/dist" "$dir/ref.tar.gz"
	read -r tw tu ts < <(timed tar czf "$dir/ref.tar.gz" -C "$dir/files" "$name")
	read -r pw pu ps < <(timed "$bin" pack --dir "$dir/out" --to "$dir/dist" --publish=false)
	[ -s "$dir/dist/$name.tar.gz" ] || { echo "bench-pack: pack failed" >&2; exit 1; }
	tar_times+=("$tw") pack_times+=("$pw")
	tar_cpu=$(echo "$tar_cpu + $tu + $ts" | bc) pack_cpu=$(echo "$pack_cpu + $pu + $ps" | bc)
	printf 'round %d: tar czf %.2fs wall (%.2fs CPU), numerology pack %.2fs wall (%.2fs CPU)\n' "$i" "$tw" "$(echo "$tu + $ts" | bc)" "$pw" "$(echo "$pu + $ps" | bc)"
done
cmp -s "$dir/first/$name.tar.gz" "$dir/dist/$name.tar.gz" && cmp -s "$dir/first/$name.zip" "$dir/dist/$name.zip" &&
	echo "reproducible: every pack gave byte-identical archives" || { echo "NOT reproducible: packs differ" >&2; exit 1; }

# Judged on the best round of each (as timeit does): on a shared machine the slower rounds
# measure the neighbours' load, not the programs. Medians are printed too.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
tar_t=$(best "${tar_times[@]}")
pack_t=$(best "${pack_times[@]}")
ratio=$(echo "scale=3; $pack_t / $tar_t" | bc)
tar_m=$(median "${tar_times[@]}")
pack_m=$(median "${pack_times[@]}")
tar_size=$(stat -c %s "$dir/ref.tar.gz")
pack_size=$(stat -c %s "$dir/dist/$name.tar.gz")
zip_size=$(stat -c %s "$dir/dist/$name.zip")
size_ratio=$(echo "scale=3; $pack_size / $tar_size" | bc)
echo
printf 'median wall time: tar czf %.2fs, numerology pack %.2fs: ratio %.2f\n' "$tar_m" "$pack_m" "$(echo "scale=3; $pack_m / $tar_m" | bc)"
printf 'best wall time of %d: tar czf %.2fs, numerology pack (.tar.gz + .zip) %.2fs: ratio %.2f (target ≤ 1.20)\n' "$rounds" "$tar_t" "$pack_t" "$ratio"
printf 'total CPU time (user + sys): tar czf %.2fs, numerology pack %.2fs: ratio %.2f\n' "$tar_cpu" "$pack_cpu" "$(echo "scale=3; $pack_cpu / $tar_cpu" | bc)"
printf 'size: tar czf %d bytes, pack .tar.gz %d bytes: ratio %.3f (target ≤ 1); pack .zip %d bytes\n' "$tar_size" "$pack_size" "$size_ratio" "$zip_size"
ok=1
[ "$(echo "$ratio <= 1.2" | bc)" = 1 ] || { echo "bench-pack: pack is slower than 1.2× tar czf" >&2; ok=0; }
[ "$pack_size" -le "$tar_size" ] || { echo "bench-pack: pack's .tar.gz is larger than tar czf's" >&2; ok=0; }
[ "$ok" = 1 ]
