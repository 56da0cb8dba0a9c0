#!/usr/bin/env bash
# Installs the tools the tests drive, on a fresh machine: Chromium and ChromeDriver (Debian
# packages) for the browser test, a Java runtime (Debian's default-jre-headless) and the Nu
# Html Checker (npm vnu-jar, templates/browsertest/package-lock.json) for the page validity
# test, and the worker's npm packages (wrangler, Node 22) from the committed
# package-lock.json. Anything that cannot be installed is a hard failure.
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

# The Nu Html Checker for the page validity test (templates/browsertest/vnu_test.go).
command -v npm >/dev/null 2>&1 || { echo "test-tools: npm not found: install Node.js and npm (any recent version)" >&2; exit 1; }
if [ ! -d templates/browsertest/node_modules ] || [ templates/browsertest/package-lock.json -nt templates/browsertest/node_modules/.package-lock.json ]; then
	echo "test-tools: npm ci in templates/browsertest/"
	npm ci --prefix templates/browsertest --no-audit --no-fund --loglevel=error
fi

if [ -f edge/worker/package-lock.json ]; then
	# Any npm will do: Node 22, which wrangler needs, is itself a devDependency of edge/worker/.
	command -v npm >/dev/null 2>&1 || { echo "test-tools: npm not found: install Node.js and npm (any recent version)" >&2; exit 1; }
	if [ ! -d edge/worker/node_modules ] || [ edge/worker/package-lock.json -nt edge/worker/node_modules/.package-lock.json ]; then
		echo "test-tools: npm ci in edge/worker/"
		npm ci --prefix edge/worker --no-audit --no-fund --loglevel=error
	fi
fi
