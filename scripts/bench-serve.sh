#!/usr/bin/env bash
# Benchmarks `numerology serve` against nginx serving the same full tree with the same
# headers (scripts/bench/nginx/nginx.conf.in), with wrk on loopback and the same request mix
# (scripts/bench/nginx/mix.lua: 90% valid matrix dates, 5% life path, 5% invalid, each
# from a fresh client). The matrix route's rate limit is on for both, as deployed: 60 per
# minute per client, keyed by X-Forwarded-For (serve --trust-header X-Forwarded-For, nginx
# limit_req on $http_x_forwarded_for). Prints requests/s, p99 latency and CPU time per
# request of both in each round, the median and range of the rounds' serve/nginx ratios,
# and both servers' peak RSS, and how long serve takes to start on the full tree (the median
# of START_ROUNDS launches).
#
# Usage: scripts/bench-serve.sh [bin/numerology]
# Environment: TREE (a full tree to reuse instead of generating one), DURATION (6s per round), WARMUP (8s, once per server), ROUNDS (6), START_ROUNDS (launches of serve timed, 5), SERVE_FLAGS (extra serve flags, e.g. --cache-mb 0), THREADS (2), CONNECTIONS (64), SERVE_PORT (18181), NGINX_PORT (18182).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-bin/numerology}
DURATION=${DURATION:-6s}
WARMUP=${WARMUP:-8s}
ROUNDS=${ROUNDS:-6}
START_ROUNDS=${START_ROUNDS:-5}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
SERVE_PORT=${SERVE_PORT:-18181}
NGINX_PORT=${NGINX_PORT:-18182}

need=()
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "bench-serve: installing ${need[*]} (Debian packages)"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

tmp=$(mktemp -d)
chmod 755 "$tmp"
serve_pid="" nginx_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	[ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ -n "${TREE:-}" ]; then
	ln -s "$(cd "$TREE" && pwd)" "$tmp/out"
else
	echo "bench-serve: generating the full tree"
	"$BIN" generate --out "$tmp/out" >/dev/null
fi
chmod -R a+rX "$tmp/out/"

wait_port() {
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "bench-serve: nothing listens on port $1" >&2
	return 1
}

# serve's start on the full tree: from its launch to its first accepted connection (the
# root of the manifest loaded, the tree checked, the port bound), polled every 5 ms, over
# START_ROUNDS launches (the last one stays up for the rounds below).
starts=()
for i in $(seq "$START_ROUNDS"); do
	start_ns=$(date +%s%N)
	"$BIN" serve --dir "$tmp/out" --addr "127.0.0.1:$SERVE_PORT" --trust-header X-Forwarded-For ${SERVE_FLAGS:-} >"$tmp/serve.log" 2>&1 &
	serve_pid=$!
	for _ in $(seq 2000); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$SERVE_PORT") 2>/dev/null; then break; fi
		sleep 0.005
	done
	wait_port "$SERVE_PORT"
	starts+=($((($(date +%s%N) - start_ns) / 1000000)))
	if [ "$i" -lt "$START_ROUNDS" ]; then
		kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
	fi
done
serve_start=$(printf '%s\n' "${starts[@]}" | sort -g | awk '{v[NR] = $1} END {printf "median %d ms (%d–%d ms over %d launches)", v[int((NR + 1) / 2)], v[1], v[NR], NR}')
echo "bench-serve: serve answered, from its launch: ${starts[*]} ms; $serve_start (goal <= 1,000 ms)"

sed -e "s|@TREE@|$tmp/out|g" -e "s|@RUN@|$tmp|g" -e "s|@PORT@|$NGINX_PORT|g" scripts/bench/nginx/nginx.conf.in >"$tmp/nginx.conf"
"$NGINX" -p "$tmp" -c "$tmp/nginx.conf" &
nginx_pid=$!
wait_port "$NGINX_PORT"

# Both must answer the same statuses for the same paths before they are compared.
for p in /api/public/matrix/05/1/2000 /api/public/matrix/30/2/2000 /api/public/life-path/11 /api/public/life-path/10 /api/public/nope; do
	a=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 192.0.2.1' "http://127.0.0.1:$SERVE_PORT$p")
	b=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 192.0.2.1' "http://127.0.0.1:$NGINX_PORT$p")
	if [ "$a" != "$b" ]; then
		echo "bench-serve: $p: serve answers $a, nginx $b" >&2
		exit 1
	fi
done
# Both limit one client to 60 matrix requests a minute: of 70 quick requests, 60 are
# admitted (nginx's leaky bucket may let one or two more through as it drains, one a second).
for port in "$SERVE_PORT" "$NGINX_PORT"; do
	urls=$(for _ in $(seq 70); do printf -- '-o /dev/null http://127.0.0.1:%s/api/public/matrix/1/1/2000 ' "$port"; done)
	# One curl, one kept-alive connection: the 70 requests take milliseconds.
	# shellcheck disable=SC2086
	ok=$(curl -s -w '%{http_code}\n' -H 'X-Forwarded-For: 192.0.2.2' $urls | grep -c '^200$' || true)
	if [ "$ok" -lt 60 ] || [ "$ok" -gt 62 ]; then
		echo "bench-serve: port $port: $ok of 70 matrix requests of one client admitted, want 60 (the limit is not on)" >&2
		exit 1
	fi
done

run() { # name port pids... → RESULT line, with the CPU time the pids spent per request
	local name=$1 port=$2
	shift 2
	local before after out req
	before=$(cpu_ticks "$@")
	out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s scripts/bench/nginx/mix.lua "http://127.0.0.1:$port" | grep '^RESULT' | sed "s/^RESULT/$name/")
	after=$(cpu_ticks "$@")
	req=$(field requests "$out")
	echo "$out cpu_us_per_req=$(( (after - before) * 1000000 / $(getconf CLK_TCK) / (req > 0 ? req : 1) ))"
}
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" <<<"$2"; }
cpu_ticks() { # user+system CPU ticks of the given processes
	local t=0 p
	for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
	echo "$t"
}
nginx_pids="$nginx_pid $(pgrep -P "$nginx_pid" | tr '\n' ' ')"

echo "bench-serve: wrk -t$THREADS -c$CONNECTIONS -d$DURATION x $ROUNDS rounds, alternating, after $WARMUP of warm-up each; mix 90% matrix / 5% life path / 5% invalid; $(nproc) CPUs"
# Warm both (serve's body cache, the page cache) once; then alternate short rounds, so that
# other load on the machine falls on both sides alike.
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s scripts/bench/nginx/mix.lua "http://127.0.0.1:$SERVE_PORT" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s scripts/bench/nginx/mix.lua "http://127.0.0.1:$NGINX_PORT" >/dev/null
: >"$tmp/rounds"
for round in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2086
	s=$(run serve "$SERVE_PORT" "$serve_pid")
	# shellcheck disable=SC2086
	n=$(run nginx "$NGINX_PORT" $nginx_pids)
	echo "round $round: $s"
	echo "round $round: $n"
	for r in "$s" "$n"; do
		if [ "$(field socket_errors "$r")" != 0 ]; then
			echo "bench-serve: socket errors: $r" >&2
			exit 1
		fi
	done
	echo "$(field rps "$s") $(field rps "$n") $(field p99_us "$s") $(field p99_us "$n") $(field cpu_us_per_req "$s") $(field cpu_us_per_req "$n")" >>"$tmp/rounds"
done
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
# nginx: the master and its workers, each process's peak resident set, summed.
nginx_kb=0
for p in $nginx_pids; do
	nginx_kb=$((nginx_kb + $(awk '/VmHWM/ {print $2}' "/proc/$p/status")))
done
# Each round's ratio compares serve and nginx under the same outside load; the median and
# the range of the rounds' ratios say more than the ratio of means on a shared machine.
sort_median() { sort -g | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2fx (rounds %.2f–%.2f)", m, v[1], v[NR]}'; }
echo "serve/nginx requests/s: median $(awk '{print $1 / $2}' "$tmp/rounds" | sort_median); ratio of the means $(awk '{s += $1; n += $2} END {printf "%.2fx (%d vs %d)", s / n, s / NR, n / NR}' "$tmp/rounds")"
echo "serve/nginx p99 latency: median $(awk '{print $3 / $4}' "$tmp/rounds" | sort_median); ratio of the means $(awk '{s += $3; n += $4} END {printf "%.2fx (%.2f ms vs %.2f ms)", s / n, s / NR / 1000, n / NR / 1000}' "$tmp/rounds"); below 1 is better"
echo "CPU time per request: serve $(awk '{print $5}' "$tmp/rounds" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}') µs, nginx $(awk '{print $6}' "$tmp/rounds" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}') µs (medians of the rounds)"
awk -v rss="$rss_kb" -v nrss="$nginx_kb" 'BEGIN {
	printf "peak RSS: serve %.0f MB (goal <= 200 MB), nginx %.0f MB (VmHWM; nginx summed over its processes)\n", rss / 1024, nrss / 1024
}'
echo "serve start, from launch to the first connection: $serve_start (goal <= 1,000 ms)"
