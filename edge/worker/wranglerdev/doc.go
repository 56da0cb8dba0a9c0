// Package wranglerdev holds the worker's integration test: src/index.js in workerd through
// `wrangler dev` (npm run dev in edge/worker/), checked by the shared conformance suite with
// edge.json's own rate window of a minute, and by the worker's own duties. It is a package
// of its own so that go test runs its minute beside the worker's other tests instead of
// after them.
package wranglerdev
