#!/usr/bin/env bash
# Installs the tools the tests drive, on a fresh machine: the npm projects given as arguments
# (default: all four), each from its committed package-lock.json, and for the pages'
# project (templates/browsertest) Chromium and its headless shell (Debian packages) for the
# browser tests and a Java runtime (Debian's default-jre-headless) for the Nu Html Checker.
#   edge/worker                    wrangler and the worker's Node 22
#   generator/openapitest/clients  the OpenAPI client generators, tsc and the linters
#   templates/browsertest          vnu-jar (the Nu Html Checker)
#   edge/mcptest                   the MCP SDK clients and conformance suite, and their Node 22
#   generator/pack/packtest        DuckDB (@duckdb/node-api), which reads the dataset's tables;
#                                  and the sqlite3 command (Debian's package) for its database
# Any npm will do: Node 22, which wrangler and the generators need, is itself a
# devDependency of each project. The projects install side by side (npm's cache is shared
# and locked).
# Anything that cannot be installed is a hard failure.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(edge/worker generator/openapitest/clients templates/browsertest edge/mcptest generator/pack/packtest)
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("${all[@]}")
for dir in "${dirs[@]}"; do
	[ -f "$dir/package-lock.json" ] || { echo "test-tools: $dir/package-lock.json not found (projects: ${all[*]})" >&2; exit 1; }
done

need_apt=()
if [[ " ${dirs[*]} " == *" templates/browsertest "* ]]; then
	command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
	command -v chromium-headless-shell >/dev/null 2>&1 || need_apt+=(chromium-headless-shell)
	# Before npm ci below: vnu-jar's install script downloads a JRE of its own when it finds none.
	command -v java >/dev/null 2>&1 || need_apt+=(default-jre-headless)
fi
if [[ " ${dirs[*]} " == *" generator/pack/packtest "* ]]; then
	command -v sqlite3 >/dev/null 2>&1 || need_apt+=(sqlite3)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "test-tools: installing ${need_apt[*]} (Debian packages)"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Each project's packages are installed once per lock file, into the user's cache (keyed by
# the sha256 of package-lock.json and the platform), and node_modules is a link to them: a
# clean clone then costs a link instead of unpacking 28,000 files (about 35 s of CPU on a
# 2-core machine), as a CI cache of node_modules would. NUMEROLOGY_NPM_CACHE names another
# cache folder; "off" installs in each project's folder, with npm ci, as before.
cache=${NUMEROLOGY_NPM_CACHE:-}
if [ -z "$cache" ]; then
	base=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
	cache=off
	[ -z "$base" ] || cache=$base/numerology/node_modules
fi
# A cache folder that cannot be made means installing in place.
[ "$cache" = off ] || mkdir -p "$cache" 2>/dev/null || cache=off

# npm_ci DIR installs DIR's packages from its lock file. A registry connection reset or cut
# mid-download (ECONNRESET, which a CI run has met) is retried: npm's own fetch retries
# first, then the whole install, three times in all, a little later each time; a lock file
# that cannot be installed still fails, on the third try.
npm_ci() {
	local try
	for try in 1 2 3; do
		if npm ci --prefix "$1" --no-audit --no-fund --loglevel=error \
			--fetch-retries=5 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=20000 --fetch-timeout=60000; then
			return 0
		fi
		[ "$try" -lt 3 ] || break
		echo "test-tools: npm ci in $1 failed (try $try of 3); trying again in $((try * 5)) s" >&2
		sleep $((try * 5))
		rm -rf "$1/node_modules"
	done
	return 1
}

install() {
	local dir=$1 key entry tmp
	if [ -d "$dir/node_modules" ] && [ ! -L "$dir/node_modules" ] &&
		[ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
		return 0 # installed in place and up to date
	fi
	command -v npm >/dev/null 2>&1 || { echo "test-tools: npm not found: install Node.js and npm (any recent version)" >&2; return 1; }
	if [ "$cache" = off ]; then
		echo "test-tools: npm ci in $dir/"
		rm -f "$dir/node_modules" 2>/dev/null || true # a link to the cache
		npm_ci "$dir"
		return
	fi
	key=$({ cat "$dir/package-lock.json"; uname -sm; } | sha256sum | cut -c1-32)
	entry=$cache/$key
	# An entry whose packages are gone (an npm ci run by hand in a project whose node_modules
	# is the link empties the entry it points to) is installed again.
	if [ -f "$entry/.complete" ] && [ ! -f "$entry/node_modules/.package-lock.json" ]; then
		echo "test-tools: the cached packages of $dir/ are incomplete: installing them again"
		rm -rf "$entry"
	fi
	if [ ! -f "$entry/.complete" ]; then
		echo "test-tools: npm ci for $dir/ (into the cache, once per lock file)"
		tmp=$(mktemp -d "$cache/.install-XXXXXX")
		cp "$dir/package.json" "$dir/package-lock.json" "$tmp/"
		if ! npm_ci "$tmp"; then
			rm -rf "$tmp"
			return 1
		fi
		touch "$tmp/.complete"
		# Another run may have installed the same entry meanwhile: keep the first.
		mv -T "$tmp" "$entry" 2>/dev/null || rm -rf "$tmp"
	fi
	touch "$entry/.complete" # marks it used, for the pruning below
	rm -rf "$dir/node_modules"
	ln -s "$entry/node_modules" "$dir/node_modules"
}

pids=()
for dir in "${dirs[@]}"; do
	install "$dir" &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done
# Entries of lock files not used for 30 days go.
if [ "$cache" != off ] && [ -d "$cache" ]; then
	find "$cache" -mindepth 2 -maxdepth 2 -name .complete -mtime +30 -printf '%h\0' | xargs -0r rm -rf
fi
exit "$status"
