#!/usr/bin/env bash
# bench-deploy: a first deploy of the full tree (1900–2100) against the fake Cloudflare API
# (edge/cloudflare/cftest, run by scripts/bench/cffake): files uploaded and wall time, as
# deployed (the tree's .assetsignore leaves the per-date matrix files out, --plan free)
# against the baseline of everything uploaded: the same binary deploying the same tree,
# hard-linked, without its .assetsignore (--plan paid), which is what deploy did before the
# packed month files (it uploaded every file of the manifest). Each round starts two fresh
# fakes (nothing already uploaded) and deploys both ways in turn; medians of ROUNDS.
# Goal: >= 20x fewer files.
# Usage: scripts/bench-deploy.sh [bin/numerology]   (ROUNDS, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/numerology}")
rounds=${ROUNDS:-3}
work=$(mktemp -d "$([ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/bench-deploy.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/cffake" ./scripts/bench/cffake
"$bin" generate --out "$work/out" >/dev/null
cp -al "$work/out" "$work/all"
rm "$work/all/.assetsignore"

export CLOUDFLARE_API_TOKEN=bench-token-0123456789 CLOUDFLARE_ACCOUNT_ID=bench-account

# deploy NAME TREE PLAN: deploys TREE to a fresh fake; prints "seconds files".
deploy() {
	local name=$1 tree=$2 plan=$3 fifo="$work/$1.in" url start end files
	mkfifo "$fifo"
	"$work/cffake" "$CLOUDFLARE_API_TOKEN" "$CLOUDFLARE_ACCOUNT_ID" <"$fifo" >"$work/$name.url" &
	pids+=("$!")
	exec 9>"$fifo" # holds the fake's stdin open until the deploy is done
	for _ in $(seq 50); do [ -s "$work/$name.url" ] && break; sleep 0.1; done
	url=$(cat "$work/$name.url")
	start=$(date +%s.%N)
	CLOUDFLARE_API_BASE_URL=$url "$bin" deploy --dir "$tree" --plan "$plan" >"$work/$name.out" 2>"$work/$name.err" ||
		{ cat "$work/$name.err" >&2; exit 1; }
	end=$(date +%s.%N)
	exec 9>&-
	wait "${pids[-1]}"
	rm "$fifo"
	files=$(sed -n 's/^  uploaded \([0-9,]*\) files.*/\1/p' "$work/$name.out" | tr -d ,)
	echo "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }') $files"
}

packed=() all=()
for i in $(seq "$rounds"); do
	read -r t f < <(deploy "packed$i" "$work/out" free)
	packed+=("$t") pfiles=$f
	read -r t f < <(deploy "all$i" "$work/all" paid)
	all+=("$t") afiles=$f
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
p=$(median "${packed[@]}") a=$(median "${all[@]}")
echo "first deploy of the full tree to the fake API ($rounds rounds, tree on $(df --output=fstype "$work" | tail -1))"
echo "as deployed (.assetsignore, --plan free):   $pfiles files uploaded, wall ${packed[*]} s (median $p s)"
echo "everything uploaded (baseline, --plan paid): $afiles files uploaded, wall ${all[*]} s (median $a s)"
awk -v pf="$pfiles" -v af="$afiles" -v p="$p" -v a="$a" 'BEGIN {
	printf "files: %.1fx fewer (goal >= 20x); wall time: %.1fx faster\n", af / pf, a / p
}'
