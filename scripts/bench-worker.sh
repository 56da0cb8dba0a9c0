#!/usr/bin/env bash
# Benchmarks the worker (edge/src/index.js):
#   1. its size: the source as uploaded, and the bundle `wrangler deploy --dry-run` builds;
#   2. requests/s through `wrangler dev` for valid matrix dates, the worker routing them,
#      versus the same files fetched as plain static assets from a second `wrangler dev`
#      with no worker at all: same tree, same concurrency, same duration, one run.
# Usage: scripts/bench-worker.sh [bin/numerology]   (BENCH_SECONDS, BENCH_CONCURRENCY)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/numerology}
seconds=${BENCH_SECONDS:-10}
conc=${BENCH_CONCURRENCY:-8}

[ -x edge/node_modules/.bin/wrangler ] || { echo "bench-worker: edge/node_modules missing: run make test-tools (npm ci in edge/)" >&2; exit 1; }
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
src=$(wc -c <edge/src/index.js)
srcgz=$(gzip -9c edge/src/index.js | wc -c)
echo "edge/src/index.js (uploaded as-is): $src bytes, gzip $srcgz bytes (goal < 10 KB)"
npm run --prefix edge --silent deploy -- --dry-run --outdir "$dir/bundle" --assets "$dir/out" >"$dir/dry.log" 2>&1 ||
	{ cat "$dir/dry.log" >&2; exit 1; }
echo "wrangler bundle index.js: $(wc -c <"$dir/bundle/index.js") bytes, gzip $(gzip -9c "$dir/bundle/index.js" | wc -c) bytes"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start NAME CONFIG: runs wrangler dev with CONFIG on a free port in its own process group,
# waits until it answers and sets $port.
start() {
	local name=$1 cfg=$2 insp pid
	port=$(free_port)
	insp=$(free_port)
	setsid npm run --prefix edge --silent dev -- -c "$cfg" --ip 127.0.0.1 --port "$port" \
		--inspector-port "$insp" --assets "$dir/out" --persist-to "$dir/state-$name" \
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
{"name": "numerology-assets-only", "compatibility_date": "2026-11-01", "assets": {"directory": "$dir/out"}}
EOF

# A small load generator: keep-alive clients, every request from a distinct client address
# (the rate limit must not refuse the benchmark), all valid dates of 2000 in turn.
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

func main() {
	base := flag.String("base", "", "base URL")
	suffix := flag.String("suffix", "", "appended to each path")
	conc := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 10*time.Second, "duration")
	flag.Parse()
	var paths []string
	for t := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); t.Year() == 2000; t = t.AddDate(0, 0, 1) {
		paths = append(paths, fmt.Sprintf("%s/api/public/matrix/%d/%d/2000%s", *base, t.Day(), int(t.Month()), *suffix))
	}
	tr := &http.Transport{MaxIdleConnsPerHost: *conc}
	client := &http.Client{Transport: tr}
	var n, ok, bad atomic.Int64
	run := func(until time.Time, count bool) {
		var wg sync.WaitGroup
		for range *conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(until) {
					i := n.Add(1)
					req, _ := http.NewRequest("GET", paths[int(i)%len(paths)], nil)
					req.Header.Set("CF-Connecting-IP", fmt.Sprintf("10.%d.%d.%d", (i>>16)&255, (i>>8)&255, i&255))
					resp, err := client.Do(req)
					if err != nil {
						bad.Add(1)
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if !count {
						continue
					}
					if resp.StatusCode == 200 {
						ok.Add(1)
					} else {
						bad.Add(1)
					}
				}
			}()
		}
		wg.Wait()
	}
	run(time.Now().Add(2*time.Second), false) // warm-up
	ok.Store(0)
	bad.Store(0)
	run(time.Now().Add(*dur), true)
	fmt.Printf("%.0f %d\n", float64(ok.Load())/dur.Seconds(), bad.Load())
}
EOF

echo "== requests/s, $conc concurrent clients, ${seconds}s each, wrangler dev on loopback"
go build -o "$dir/load" "$dir/load.go"
start worker "$PWD/edge/wrangler.json"
read -r wrps wbad < <("$dir/load" -base "http://127.0.0.1:$port" -c "$conc" -d "${seconds}s")
kill -TERM -- "-${pids[0]}" 2>/dev/null || true
start assets "$dir/assets-only.json"
read -r arps abad < <("$dir/load" -base "http://127.0.0.1:$port" -suffix .json -c "$conc" -d "${seconds}s")
echo "through the worker  /api/public/matrix/{d}/{m}/2000       : $wrps req/s ($wbad not 200)"
echo "plain assets        /api/public/matrix/{d}/{m}/2000.json  : $arps req/s ($abad not 200)"
awk -v w="$wrps" -v a="$arps" 'BEGIN { printf "ratio worker/assets: %.2fx (goal >= 0.7x)\n", w / a }'
