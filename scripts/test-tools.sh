#!/usr/bin/env bash
# Installs the tools the tests drive, on a fresh machine: the npm projects given as arguments
# (default: all three), each from its committed package-lock.json, and for the pages'
# project (templates/browsertest) Chromium and ChromeDriver (Debian packages) for the browser
# tests and a Java runtime (Debian's default-jre-headless) for the Nu Html Checker.
#   edge/worker                    wrangler and the worker's Node 22
#   generator/openapitest/clients  the OpenAPI client generators, tsc and the linters
#   templates/browsertest          vnu-jar (the Nu Html Checker)
# Any npm will do: Node 22, which wrangler and the generators need, is itself a
# devDependency of each project. The projects install side by side (npm's cache is shared
# and locked); a project whose node_modules is as new as its lock file is left alone.
# Anything that cannot be installed is a hard failure.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(edge/worker generator/openapitest/clients templates/browsertest)
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("${all[@]}")
for dir in "${dirs[@]}"; do
	[ -f "$dir/package-lock.json" ] || { echo "test-tools: $dir/package-lock.json not found (projects: ${all[*]})" >&2; exit 1; }
done

need_apt=()
if [[ " ${dirs[*]} " == *" templates/browsertest "* ]]; then
	command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
	command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
	# Before npm ci below: vnu-jar's install script downloads a JRE of its own when it finds none.
	command -v java >/dev/null 2>&1 || need_apt+=(default-jre-headless)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "test-tools: installing ${need_apt[*]} (Debian packages)"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

pids=()
for dir in "${dirs[@]}"; do
	if [ -d "$dir/node_modules" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
		continue
	fi
	command -v npm >/dev/null 2>&1 || { echo "test-tools: npm not found: install Node.js and npm (any recent version)" >&2; exit 1; }
	echo "test-tools: npm ci in $dir/"
	npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done
exit "$status"
