package edge

import "embed"

// WorkerFS holds the Cloudflare Worker as deploy uploads it: wrangler.json (name,
// compatibility date, assets config, rate-limit binding) and the module it names as main.
//
//go:embed src/index.js wrangler.json
var WorkerFS embed.FS

// WorkerConfig is the path of the wrangler config inside WorkerFS.
const WorkerConfig = "wrangler.json"
