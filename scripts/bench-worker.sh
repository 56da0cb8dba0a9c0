#!/usr/bin/env bash
# Benchmarks the worker (edge/worker/src/index.js):
#   1. its size: the source as uploaded, and the bundle `wrangler deploy --dry-run` builds;
#   2. its CPU per matrix request, cold and warm, p50/p99: its fetch handler run in Node
#      on a full-range tree (scripts/bench-worker-cpu.mjs);
#   3. requests/s through `wrangler dev` for valid matrix dates, the worker routing them,
#      versus the same files fetched as plain static assets from a second `wrangler dev`
#      with no worker at all: same tree, same concurrency, same duration, one run, the two
#      targets alternating in short rounds so that the machine's other load weighs on both.
# Usage: scripts/bench-worker.sh [bin/numerology]
#   (BENCH_SECONDS, BENCH_CONCURRENCY; BENCH_CPU_ONLY=1 runs 1–2 only; WARM_REQUESTS, COLD_RUNS)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/numerology}
seconds=${BENCH_SECONDS:-10}
conc=${BENCH_CONCURRENCY:-8}

[ -x edge/worker/node_modules/.bin/wrangler ] || { echo "bench-worker: edge/worker/node_modules missing: run make test-tools (npm ci in edge/worker/)" >&2; exit 1; }
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false NO_COLOR=1 CI=1

dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	sleep 1
	for p in "${pids[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

"$bin" generate --out "$dir/out" --years 2000 >/dev/null

echo "== worker size"
src=$(wc -c <edge/worker/src/index.js)
srcgz=$(gzip -9c edge/worker/src/index.js | wc -c)
echo "edge/worker/src/index.js (uploaded as-is): $src bytes, gzip $srcgz bytes (goal < 10 KB)"
npm run --prefix edge/worker --silent deploy -- --dry-run --outdir "$dir/bundle" --assets "$dir/out" >"$dir/dry.log" 2>&1 ||
	{ cat "$dir/dry.log" >&2; exit 1; }
echo "wrangler bundle index.js: $(wc -c <"$dir/bundle/index.js") bytes, gzip $(gzip -9c "$dir/bundle/index.js" | wc -c) bytes"

echo "== worker CPU per matrix request (fetch handler in Node, full-range tree)"
# The full tree goes to tmpfs when there is one: 75,000 files written only to be read.
full=$(mktemp -d "$([ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/bench-worker.XXXXXX")
trap 'rm -rf "$full"; cleanup' EXIT
"$bin" generate --out "$full/out" >/dev/null
edge/worker/node_modules/.bin/node scripts/bench-worker-cpu.mjs "$full/out" "${WARM_REQUESTS:-20000}" "${COLD_RUNS:-200}"
rm -rf "$full"
[ "${BENCH_CPU_ONLY:-}" = 1 ] && exit 0

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start NAME CONFIG ASSETS: runs wrangler dev with CONFIG and the assets directory ASSETS on
# a free port in its own process group, waits until it answers and sets $port.
start() {
	local name=$1 cfg=$2 assets=$3 insp pid
	port=$(free_port)
	insp=$(free_port)
	setsid npm run --prefix edge/worker --silent dev -- -c "$cfg" --ip 127.0.0.1 --port "$port" \
		--inspector-port "$insp" --assets "$assets" --persist-to "$dir/state-$name" \
		--show-interactive-dev-session=false --log-level error >"$dir/$name.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 1 300); do
		if curl -fs -o /dev/null "http://127.0.0.1:$port/api/public/matrix/1/1/2000.json" ||
			curl -fs -o /dev/null "http://127.0.0.1:$port/api/public/matrix/1/1/2000"; then
			return
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	cat "$dir/$name.log" >&2
	echo "bench-worker: wrangler dev ($name) did not start" >&2
	exit 1
}

# The plain-asset instance: the same tree, no worker script, nothing run first.
cat >"$dir/assets-only.json" <<EOF
{"name": "numerology-assets-only", "compatibility_date": "2026-10-20", "assets": {"directory": "$dir/out-assets"}}
EOF

# A small load generator: keep-alive clients, each client address used for 50 requests
# only (the rate limit must not refuse the benchmark), all valid dates of 2000 in turn, the two
# targets alternating in rounds.
cat >"$dir/load.go" <<'EOF'
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

var n atomic.Int64

// run loads urls with conc clients until the deadline; it returns the 200s and the others.
func run(client *http.Client, urls []string, conc int, until time.Time) (ok, bad int64) {
	var okN, badN atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(until) {
				i := n.Add(1)
				req, _ := http.NewRequest("GET", urls[int(i)%len(urls)], nil)
				c := i / 50 // 50 requests per client address: under the limit of 60 a minute
				req.Header.Set("CF-Connecting-IP", fmt.Sprintf("10.%d.%d.%d", (c>>16)&255, (c>>8)&255, c&255))
				resp, err := client.Do(req)
				if err != nil {
					badN.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					okN.Add(1)
				} else {
					badN.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return okN.Load(), badN.Load()
}

func matrixURLs(base, suffix string) []string {
	var u []string
	for t := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); t.Year() == 2000; t = t.AddDate(0, 0, 1) {
		u = append(u, fmt.Sprintf("%s/api/public/matrix/%d/%d/2000%s", base, t.Day(), int(t.Month()), suffix))
	}
	return u
}

func lifePathURLs(base, suffix string) []string {
	var u []string
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22, 33} {
		u = append(u, fmt.Sprintf("%s/api/public/life-path/%d%s", base, n, suffix))
	}
	return u
}

func main() {
	worker := flag.String("worker", "", "base URL of the worker")
	assets := flag.String("assets", "", "base URL of the plain assets")
	conc := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 10*time.Second, "total duration per target")
	rounds := flag.Int("rounds", 5, "alternating rounds")
	flag.Parse()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc}}
	targets := [4][]string{
		matrixURLs(*worker, ""), matrixURLs(*assets, ".json"),
		lifePathURLs(*worker, ""), lifePathURLs(*assets, ".json"),
	}
	for _, u := range targets { // warm-up
		run(client, u, *conc, time.Now().Add(time.Second))
	}
	var ok, bad [4]int64
	slice := *dur / time.Duration(*rounds)
	for range *rounds {
		for k, u := range targets {
			o, b := run(client, u, *conc, time.Now().Add(slice))
			ok[k] += o
			bad[k] += b
		}
	}
	s := dur.Seconds()
	for k := range targets {
		fmt.Printf("%.0f %d ", float64(ok[k])/s, bad[k])
	}
	fmt.Println()
}
EOF

echo "== requests/s: $conc keep-alive clients, ${seconds}s per target, 4 targets in 5 alternating rounds, wrangler dev on loopback"
go build -o "$dir/load" "$dir/load.go"
start worker "$PWD/edge/worker/wrangler.json" "$dir/out"
wport=$port
# The baseline serves the per-date files as plain assets, so its copy of the tree has no
# .assetsignore (which keeps them out of the worker's assets).
cp -al "$dir/out" "$dir/out-assets"
rm "$dir/out-assets/.assetsignore"
start assets "$dir/assets-only.json" "$dir/out-assets"
aport=$port
read -r wrps wbad arps abad wlrps wlbad alrps albad < <("$dir/load" -worker "http://127.0.0.1:$wport" -assets "http://127.0.0.1:$aport" -c "$conc" -d "${seconds}s")
echo "matrix, through the worker  /api/public/matrix/{d}/{m}/2000       : $wrps req/s ($wbad not 200)"
echo "matrix, plain assets        /api/public/matrix/{d}/{m}/2000.json  : $arps req/s ($abad not 200)"
awk -v w="$wrps" -v a="$arps" 'BEGIN { printf "matrix ratio worker/assets: %.2fx (goal >= 0.7x)\n", w / a }'
# The same without the rate limit: routing and headers alone (wrangler dev simulates the
# Rate Limiting binding with a Durable Object and SQLite, far costlier than Cloudflare's).
echo "life path, through the worker  /api/public/life-path/{n}      : $wlrps req/s ($wlbad not 200)"
echo "life path, plain assets        /api/public/life-path/{n}.json : $alrps req/s ($albad not 200)"
awk -v w="$wlrps" -v a="$alrps" 'BEGIN { printf "life path ratio worker/assets (no rate limit): %.2fx\n", w / a }'
