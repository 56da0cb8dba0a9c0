// Package worker holds the Cloudflare Worker: src/index.js, its wrangler.json and npm files
// (wrangler dev and deploy, Node 22). Its Go tests run the shared conformance suite against
// the worker in Node with fake bindings (test/, fast), and run the worker's node --test
// suite; edge/worker/wranglerdev runs it in workerd through `wrangler dev`.
package worker

import "embed"

// WorkerFS holds the Cloudflare Worker as deploy uploads it: wrangler.json (name,
// compatibility date, assets config, rate-limit binding) and the module it names as main.
//
//go:embed src/index.js wrangler.json
var WorkerFS embed.FS

// WorkerConfig is the path of the wrangler config inside WorkerFS.
const WorkerConfig = "wrangler.json"
