#!/usr/bin/env bash
# The import rules of docs/design.md §12, each failing make check with what breaks it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The generator is pure: it never imports net/http or the Cloudflare client.
# The project's own packages import neither; the Cloudflare client is not reached even through
# a library. net/http is checked in the project's packages only: the Parquet writer's brotli
# codec carries an HTTP handler helper of its own, which pack never calls.
bad=$( (go list -f '{{range .Imports}}{{.}}{{"\n"}}{{end}}' ./generator/... ./content/... | grep -E '^(net/http|github\.com/cloudflare/)'
	go list -deps ./generator/... ./content/... | grep -E '^github\.com/cloudflare/') || true)
if [ -n "$bad" ]; then
	echo "generator/ or content/ imports what it must not: $bad" >&2
	exit 1
fi
# The shared facts are a leaf: the generator and the edges both import them (docs/design.md §9).
bad=$(go list -f '{{join .Imports "\n"}}' ./internal/contract | grep -E '^github\.com/opennumerology/' || true)
if [ -n "$bad" ]; then
	echo "internal/contract imports the project: $bad" >&2
	exit 1
fi
# The rules are pure and small: generator/rules imports nothing of the project but internal/
# (the calendar, docs/design.md §2).
bad=$(go list -deps ./generator/rules/ | grep -E '^github\.com/opennumerology/numerology/' | grep -vxE 'github\.com/opennumerology/numerology/(generator/rules|internal/[a-z]+)' || true)
if [ -n "$bad" ]; then
	echo "generator/rules imports the project beyond internal/: $bad" >&2
	exit 1
fi
# Content is loaded, the rules decide: content imports nothing of the generator; the
# generator hands it the rules (generator.ContentRules, docs/design.md §7).
bad=$(go list -deps ./content/ | grep -E '^github\.com/opennumerology/numerology/generator' || true)
if [ -n "$bad" ]; then
	echo "content imports the generator: $bad" >&2
	exit 1
fi
# internal/ holds leaves the edges and the generator share: it imports nothing of the project
# outside internal/, test files included (issue 26: the helpers that start a server live in
# edge/server/servertest, the tests that need a generated tree in the generator's packages,
# and what assetsignore checks, the files the worker reads, is handed to it by its callers).
bad=$(go list -test -deps ./internal/... | grep -E '^github\.com/opennumerology/numerology/' | grep -vE '^github\.com/opennumerology/numerology/internal/' || true)
if [ -n "$bad" ]; then
	echo "internal/ imports the project outside internal/ (the generator, the edges, content): $bad" >&2
	exit 1
fi
# pack knows no route by name (issue 26): it imports nothing of the generator but the
# manifest and the table model; cmd/numerology hands it the content, tables and renderers.
bad=$(go list -deps ./generator/pack/ | grep -E '^github\.com/opennumerology/numerology/generator' | grep -vxE 'github\.com/opennumerology/numerology/generator/(pack|pack/table|manifest)' || true)
if [ -n "$bad" ]; then
	echo "generator/pack imports the generator beyond the manifest and the table model: $bad" >&2
	exit 1
fi
# The OpenAPI document is built from values the generator hands over (generator/openapi.go):
# package openapi imports nothing of the project but the manifest and the leaves of internal/
# (the calendar it counts days with, the names the manifest takes from them).
bad=$(go list -deps ./generator/openapi/ | grep -E '^github\.com/opennumerology/numerology/' | grep -vxE 'github\.com/opennumerology/numerology/(generator/(openapi|manifest)|internal/[a-z]+)' || true)
if [ -n "$bad" ]; then
	echo "generator/openapi imports more of the project than the manifest: $bad" >&2
	exit 1
fi
# No package imports its parent (issue 26): a parent is built from its children, not the
# other way round. Test helper packages (…test, as net/http/httptest imports net/http) are
# the exception: generatortest generates trees, servertest starts a server.
bad=$(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./... | awk '
	{ p = $1; parent = p; sub(/\/[^\/]+$/, "", parent)
	  if (p ~ /test$/) next
	  for (i = 2; i <= NF; i++) if ($i == parent) print p " imports " parent }')
if [ -n "$bad" ]; then
	echo "a package imports its parent: $bad" >&2
	exit 1
fi
# The tree's format knows no route (issue 26, docs/design.md §12): generator/manifest
# depends on nothing of the project but internal/, and neither it nor pack holds a route's
# name or a literal part of its paths (scripts/routeliterals -format reads their string
# literals); the routes are rows of the table, each in its family's file.
bad=$(go list -deps ./generator/manifest/ | grep -E '^github\.com/opennumerology/numerology/' | grep -vxE 'github\.com/opennumerology/numerology/(generator/manifest|internal/[a-z]+)' || true)
if [ -n "$bad" ]; then
	echo "generator/manifest imports the project beyond internal/: $bad" >&2
	exit 1
fi
if ! bad=$(go run ./scripts/routeliterals -format generator/manifest generator/pack generator/pack/table); then
	echo "the tree's format or pack names a route (take it from the route table the manifest carries):" >&2
	echo "$bad" >&2
	exit 1
fi
