#!/usr/bin/env bash
# Every skip goes through internal/testsupport (Skip, SkipShort), so that make test and CI,
# which set NUMEROLOGY_TEST_NO_SKIP, turn it into a failure: no test is skipped in silence.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(git grep -nE '\b(t|tb|b|f)\.(Skip|Skipf|SkipNow)\(' -- '*.go' ':!internal/testsupport/' || true)
if [ -n "$bad" ]; then
	echo "a test skips without internal/testsupport.Skip or SkipShort:" >&2
	echo "$bad" >&2
	exit 1
fi
