// Package workertest tests the Cloudflare Worker of edge/src in the real Workers runtime:
// it generates a small tree, starts `wrangler dev` (workerd) on loopback through the npm
// scripts of edge/package.json and runs the shared conformance suite against it, plus the
// checks that only concern the worker. It holds tests only.
package workertest
