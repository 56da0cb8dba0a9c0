#!/usr/bin/env bash
# Installs the tools the tests drive, on a fresh machine: Chromium and ChromeDriver (Debian
# packages) for the browser test, a Java runtime (Debian's default-jre-headless) for the Nu
# Html Checker, and the npm packages of the worker (wrangler, Node 22), of the OpenAPI client
# test (the generators, tsc and the linters) and of the page validity test (vnu-jar) from
# their committed package-lock.json files. Anything that cannot be installed is a hard failure.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
# Before npm ci below: vnu-jar's install script downloads a JRE of its own when it finds none.
command -v java >/dev/null 2>&1 || need_apt+=(default-jre-headless)
if [ ${#need_apt[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "test-tools: installing ${need_apt[*]} (Debian packages)"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# The npm projects the tests drive, each from its committed package-lock.json: the worker's
# (wrangler), the OpenAPI client generators and linters of generator/openapitest/clients, and
# the Nu Html Checker of templates/browsertest (vnu_test.go).
# Any npm will do: Node 22, which wrangler and the generators need, is itself a
# devDependency of each.
for dir in edge/worker generator/openapitest/clients templates/browsertest; do
	[ -f "$dir/package-lock.json" ] || continue
	command -v npm >/dev/null 2>&1 || { echo "test-tools: npm not found: install Node.js and npm (any recent version)" >&2; exit 1; }
	if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
		echo "test-tools: npm ci in $dir/"
		npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
	fi
done
