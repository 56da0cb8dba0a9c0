// serve: the worker in Node behind a node:http server on 127.0.0.1, for suites that speak
// HTTP (the Go conformance suite, edge/worker/inprocess_test.go). Requests are dispatched as
// Cloudflare does (/api/* to the worker first, the rest to the assets) with the fake ASSETS
// and RATE_LIMITER of test/harness.mjs. It prints "listening on http://127.0.0.1:PORT" once
// it accepts requests, and runs until it is killed.
//
// Usage: node test/serve.mjs TREE [WINDOW_SECONDS]
//   WINDOW_SECONDS: the rate limit's window, in edge.json and the fake binding (default:
//   edge.json's own); the limit itself is edge.json's.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { assets, dispatch, loadWorker, rateLimiter, windowEdit } from "./harness.mjs";

const [tree, window] = process.argv.slice(2);
if (!tree || (window !== undefined && !/^[1-9][0-9]*$/.test(window))) {
  console.error("usage: node test/serve.mjs TREE [WINDOW_SECONDS]");
  process.exit(2);
}
const edge = JSON.parse(readFileSync(path.join(tree, "api", "public", "edge.json"), "utf8"));
const seconds = window ? Number(window) : edge.rate_limit.window_seconds;
const env = {
  ASSETS: assets(tree, { edit: window ? windowEdit(seconds) : null }),
  RATE_LIMITER: rateLimiter({ limit: edge.rate_limit.requests, periodSeconds: seconds }),
};
const worker = await loadWorker();

const server = createServer(async (req, res) => {
  try {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    // As wrangler dev does: the peer's address when the request names no client.
    if (!headers.has("CF-Connecting-IP")) {
      headers.set("CF-Connecting-IP", req.socket.remoteAddress);
    }
    // The raw target is appended, not resolved against a base: "//x" stays a path.
    // Only the MCP endpoint reads a body (POST); the others get none.
    const chunks = [];
    for await (const c of req) {
      chunks.push(c);
    }
    const body = req.method === "GET" || req.method === "HEAD" || chunks.length === 0 ? undefined : Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host || "127.0.0.1"}${req.url}`, { method: req.method, headers, body });
    const response = await dispatch(worker, env, request);
    const out_ = req.method === "HEAD" || response.body === null ? null : Buffer.from(await response.arrayBuffer());
    const out = {};
    for (const [k, v] of response.headers) {
      out[k] = v;
    }
    // workerd sends the length of a body it holds whole, as here.
    if (out_ !== null && out["content-length"] === undefined) {
      out["content-length"] = String(out_.length);
    }
    res.writeHead(response.status, out);
    res.end(out_);
  } catch (err) {
    console.error(`${req.method} ${req.url}: ${err.stack || err}`);
    res.writeHead(502, { "content-type": "text/plain" });
    res.end("the worker threw: see the shim's output\n");
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
