// The worker's own duties, in process: what it asks of the assets, its 500s, the headers it
// replaces, the rate limit through its binding, and its answers without a config. The shared
// contract is checked by the Go conformance suite through test/serve.mjs
// (inprocess_test.go) and in workerd by the wrangler dev test (wranglerdev/worker_test.go).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { assets, dispatch, listedFiles, loadWorker, rateLimiter, testTree } from "./harness.mjs";

const ORIGIN = "https://numerology.example";

let tree, edge, listed;
before(() => {
  tree = testTree();
  edge = JSON.parse(readFileSync(path.join(tree, "api", "public", "edge.json"), "utf8"));
  listed = listedFiles(tree);
});

// setup returns a fresh worker instance with its bindings.
async function setup({ override, body, limit = 1e9, binding = true } = {}) {
  const env = { ASSETS: assets(tree, { override, body }) };
  if (binding) {
    env.RATE_LIMITER = rateLimiter({ limit, periodSeconds: edge.rate_limit.window_seconds });
  }
  const worker = await loadWorker();
  const send = async (target, { method = "GET", client = "192.0.2.1", headers = {} } = {}) => {
    const request = new Request(ORIGIN + target, { method, headers: { "CF-Connecting-IP": client, ...headers } });
    const response = await dispatch(worker, env, request);
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  };
  return { env, send };
}

// quietly runs fn with console.error captured (the worker logs each 500 and limiter
// failure) and returns what it logged.
async function quietly(fn) {
  const logged = [];
  const log = console.error;
  console.error = (...args) => logged.push(args.join(" "));
  try {
    await fn();
  } finally {
    console.error = log;
  }
  return logged;
}

const treeFile = (p) => readFileSync(path.join(tree, p));
const sha256Of = (p) => listed.find(([f]) => f === p)[2];

describe("assets", () => {
  test("the per-date files and error bodies are not among them (.assetsignore)", () => {
    const { files } = assets(tree);
    assert.ok(files.has("api/public/matrix-months/2000/5.jsonl"));
    assert.ok(files.has("api/public/edge.json"));
    assert.ok(files.has("index.html"));
    for (const f of files) {
      assert.ok(!f.startsWith("api/public/matrix/") && !f.startsWith("api/public/errors/"), `${f} is an asset`);
      assert.ok(![".assetsignore", "_headers", "_redirects"].includes(f), `${f} is an asset`);
    }
  });

  test("matrix records come from the month files; edge.json is read once", async () => {
    const { env, send } = await setup();
    for (const [d, m, y] of [[15, 5, 2000], [1, 1, 1900], [31, 12, 2100], [29, 2, 2000]]) {
      const file = `api/public/matrix/${d}/${m}/${y}.json`;
      const r = await send(`/api/public/matrix/${d}/${m}/${y}`);
      assert.equal(r.status, 200, file);
      assert.ok(r.body.equals(treeFile(file)), `the body is not ${file}`);
      assert.equal(r.headers.get("ETag"), `"${sha256Of(file)}"`);
    }
    assert.deepEqual(env.ASSETS.fetched, [
      "api/public/edge.json",
      "api/public/matrix-months/2000/5.jsonl",
      "api/public/matrix-months/1900/1.jsonl",
      "api/public/matrix-months/2100/12.jsonl",
      "api/public/matrix-months/2000/2.jsonl",
    ]);
  });

  // A packed file arrives in pieces of any size: the worker reads a byte stream (every asset
  // body in workerd) into buffers of its own, and any other stream chunk by chunk; a record
  // may straddle pieces, and the last line of a file ends it.
  test("a record is whole however the packed file's body is cut", async () => {
    const byteStream = (size) => (bytes) => {
      let at = 0;
      return new ReadableStream({
        type: "bytes",
        autoAllocateChunkSize: size, // a default reader's (edge.json's) pieces
        pull(c) {
          const view = c.byobRequest.view;
          const n = Math.min(size, view.byteLength, bytes.length - at);
          view.set(bytes.subarray(at, at + n));
          at += n;
          c.byobRequest.respond(n);
          if (at === bytes.length) {
            c.close();
          }
        },
      });
    };
    const chunkStream = (size) => (bytes) => {
      let at = 0;
      return new ReadableStream({
        pull(c) {
          c.enqueue(bytes.slice(at, at + size));
          at += size;
          if (at >= bytes.length) {
            c.close();
          }
        },
      });
    };
    for (const [label, body] of [["byte stream, 7-byte reads", byteStream(7)], ["byte stream, 1,000-byte reads", byteStream(1000)], ["other stream, 7-byte chunks", chunkStream(7)], ["other stream, 4,096-byte chunks", chunkStream(4096)]]) {
      const { send } = await setup({ body });
      for (const [d, m, y] of [[1, 1, 1900], [15, 5, 2000], [29, 2, 2000], [31, 12, 2100]]) {
        const file = `api/public/matrix/${d}/${m}/${y}.json`;
        const r = await send(`/api/public/matrix/${d}/${m}/${y}`);
        assert.equal(r.status, 200, `${label}: ${file}`);
        assert.ok(r.body.equals(treeFile(file)), `${label}: the body is not ${file}`);
        assert.equal(r.headers.get("ETag"), `"${sha256Of(file)}"`, `${label}: ${file}`);
      }
    }
  });

  test("rejected paths are answered without asking the assets", async () => {
    const { env, send } = await setup();
    await send("/api/public/life-path/7"); // loads edge.json
    const asked = env.ASSETS.fetched.length;
    const e = edge.errors;
    for (const [target, key] of [
      ["/api/public/matrix/30/2/2000", "invalid_date"],
      ["/api/public/matrix/0/1/2000", "invalid_date"],
      ["/api/public/matrix/1/13/2000", "invalid_date"],
      ["/api/public/matrix/1/1/2000.json", "invalid_date"],
      ["/api/public/edge.json", "not_found"],
      ["/api/public/matrix-months/2000/1.jsonl", "not_found"],
      ["/" + e.invalid_date.file, "not_found"],
      ["/api/public/life-path/7.json", "number_not_found"],
      ["/api/public/life-path.json", "not_found"],
    ]) {
      const r = await send(target);
      assert.equal(r.status, e[key].status, target);
      assert.equal(r.body.toString(), e[key].body, target);
    }
    assert.deepEqual(env.ASSETS.fetched.slice(asked), []);
  });

  test("a blanked record and a missing month file are 500s; their neighbours are not", async () => {
    const month = "api/public/matrix-months/2000/6.jsonl";
    const lines = treeFile(month).toString().split("\n");
    lines[14] = "";
    const { send } = await setup({ override: new Map([[month, Buffer.from(lines.join("\n"))]]) });
    const internal = edge.errors.internal_error;
    const logged = await quietly(async () => {
      for (const [target, status] of [
        ["/api/public/matrix/15/6/2000", 500],
        ["/api/public/matrix/015/06/2000/", 500],
        ["/api/public/matrix/1/1/1999", 500], // a year the tree does not hold
        ["/api/public/matrix/14/6/2000", 200],
        ["/api/public/matrix/16/6/2000", 200],
        ["/api/public/matrix/30/6/2000", 200],
      ]) {
        const r = await send(target);
        assert.equal(r.status, status, target);
        if (status === 500) {
          assert.equal(r.body.toString(), internal.body, target);
          assert.equal(r.headers.get("Cache-Control"), edge.headers.by_status["500"]["Cache-Control"]);
        }
      }
      const short = "api/public/matrix-months/2000/7.jsonl";
      const cut = treeFile(short).toString().split("\n").slice(0, 30).join("\n") + "\n";
      const { send: send2 } = await setup({ override: new Map([[short, Buffer.from(cut)], ["api/public/life-path/7.json", null]]) });
      assert.equal((await send2("/api/public/matrix/31/7/2000")).status, 500, "a month file without the day's line");
      assert.equal((await send2("/api/public/matrix/30/7/2000")).status, 200);
      assert.equal((await send2("/api/public/life-path/7")).status, 500, "a route file not among the assets");
      assert.equal((await send2("/api/public/life-path/8")).status, 200);
    });
    assert.deepEqual(logged, [
      "asset api/public/matrix-months/2000/6.jsonl: no record on line 15",
      "asset api/public/matrix-months/2000/6.jsonl: no record on line 15",
      "asset api/public/matrix-months/1999/1.jsonl: status 404",
      "asset api/public/matrix-months/2000/7.jsonl: no record on line 31",
      "asset api/public/life-path/7.json: status 404",
    ]);
  });

  test("the asset server's headers are replaced by §4's set", async () => {
    const { send } = await setup();
    for (const [target, status] of [
      ["/api/public/matrix/1/1/1900", 200],
      ["/api/public/life-path/33", 200],
      ["/api/public/life-path/", 200],
      ["/api/public", 200],
      ["/api/public/matrix/31/12/2101", 400],
      ["/api/public/nope", 404],
    ]) {
      const r = await send(target);
      assert.equal(r.status, status, target);
      const want = { ...edge.headers.common, ...edge.headers.by_status[status] };
      const got = Object.fromEntries(r.headers);
      if (status === 200) {
        assert.match(got.etag, /^"[0-9a-f]{64}"$/, target);
        delete got.etag;
      }
      const lower = Object.fromEntries(Object.entries(want).map(([k, v]) => [k.toLowerCase(), v]));
      assert.deepEqual(got, lower, target);
    }
  });

  test("every method but GET, HEAD and OPTIONS is a 405, unregistered ones too", async () => {
    const { send } = await setup();
    const e = edge.errors.method_not_allowed;
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "PROPFIND", "FOO"]) {
      for (const target of ["/api/public/life-path/7", "/api/public/matrix/15/5/2000", "/api/public/nope"]) {
        const r = await send(target, { method });
        assert.equal(r.status, 405, `${method} ${target}`);
        assert.equal(r.body.toString(), e.body);
        assert.equal(r.headers.get("Allow"), "GET, HEAD, OPTIONS");
      }
    }
  });

  test("HEAD carries the length of the body it leaves out", async () => {
    const { send } = await setup();
    for (const target of ["/api/public/matrix/15/5/2000", "/api/public/life-path/7", "/api/public/matrix/30/2/2000"]) {
      const get = await send(target);
      const head = await send(target, { method: "HEAD" });
      assert.equal(head.status, get.status, target);
      assert.equal(head.body.length, 0, target);
      assert.equal(head.headers.get("Content-Length"), String(get.body.length), target);
    }
  });
});

describe("rate limit", () => {
  test("the request after the limit gets 429 with Retry-After of edge.json's window", async () => {
    const { env, send } = await setup({ limit: edge.rate_limit.requests });
    const n = edge.rate_limit.requests;
    for (let i = 0; i < n + 3; i++) {
      assert.equal((await send("/api/public/matrix/1/1/2000", { method: "OPTIONS" })).status, 204, "OPTIONS is not counted");
    }
    for (let i = 0; i < n; i++) {
      const target = i % 2 ? "/api/public/matrix/31/2/2000" : "/api/public/matrix/1/1/2000"; // invalid ones count too
      assert.notEqual((await send(target)).status, 429, `request ${i + 1}`);
    }
    const r = await send("/api/public/matrix/15/5/2000");
    assert.equal(r.status, 429);
    assert.equal(r.body.toString(), edge.errors.too_many_requests.body);
    assert.equal(r.headers.get("Retry-After"), String(edge.rate_limit.window_seconds));
    assert.equal((await send("/api/public/matrix/15/5/2000", { method: "POST" })).status, 429, "before the method check");
    assert.equal((await send("/api/public/life-path/7")).status, 200, "other routes are not limited");
    assert.equal((await send("/api/public/matrix/15/5/2000", { client: "192.0.2.2" })).status, 200, "another client");
    assert.equal(env.RATE_LIMITER.keys.filter((k) => k === "192.0.2.1").length, n + 2);
  });

  test("IPv6 clients share a /64", async () => {
    const { send } = await setup({ limit: 2 });
    assert.equal((await send("/api/public/matrix/1/1/2000", { client: "2001:db8:7:8::1" })).status, 200);
    assert.equal((await send("/api/public/matrix/1/1/2000", { client: "2001:DB8:7:8:ffff:ffff:ffff:fffe" })).status, 200);
    assert.equal((await send("/api/public/matrix/1/1/2000", { client: "2001:0db8:0007:0008::2" })).status, 429);
    assert.equal((await send("/api/public/matrix/1/1/2000", { client: "2001:db8:7:9::1" })).status, 200, "the next /64");
  });

  test("an IPv4 client is one client in any spelling", async () => {
    const { send } = await setup({ limit: 3 });
    for (const client of ["198.51.100.7", "::ffff:198.51.100.7", "64:ff9b::c633:6407"]) {
      assert.equal((await send("/api/public/matrix/1/1/2000", { client })).status, 200, client);
    }
    assert.equal((await send("/api/public/matrix/1/1/2000", { client: "[::ffff:c633:6407]:443" })).status, 429);
  });

  test("a failing binding admits; a missing one is a 500", async () => {
    const { env, send } = await setup();
    env.RATE_LIMITER.failing = true;
    const logged = await quietly(async () => {
      assert.equal((await send("/api/public/matrix/1/1/2000")).status, 200);
      const { send: unbound } = await setup({ binding: false });
      const r = await unbound("/api/public/matrix/1/1/2000");
      assert.equal(r.status, 500);
      assert.equal(r.body.toString(), edge.errors.internal_error.body);
      assert.equal((await unbound("/api/public/life-path/7")).status, 200, "routes without a limit");
    });
    assert.deepEqual(logged, ["rate limiter: Error: rate limiter unavailable", "RATE_LIMITER binding is not configured"]);
  });
});

describe("edge config", () => {
  let empty;
  before(() => {
    empty = mkdtempSync(path.join(tmpdir(), "worker-noconfig-"));
    writeFileSync(path.join(empty, "index.html"), "<!doctype html>\n");
  });
  after(() => rmSync(empty, { recursive: true, force: true }));

  test("without edge.json every API answer is the built-in 500", async () => {
    const env = { ASSETS: assets(empty), RATE_LIMITER: rateLimiter() };
    const worker = await loadWorker();
    const logged = await quietly(async () => {
      for (const target of ["/api/public/matrix/1/1/2000", "/api/public/life-path", "/api/public"]) {
        const r = await dispatch(worker, env, new Request(ORIGIN + target));
        assert.equal(r.status, 500, target);
        assert.equal(r.headers.get("Cache-Control"), "no-store, no-transform");
        assert.equal(r.headers.get("Content-Type"), "application/json; charset=utf-8");
        assert.equal(r.headers.get("Content-Encoding"), "identity");
        const body = await r.json();
        assert.equal(body.error, "Internal error");
        assert.equal(body.status, 500);
      }
    });
    assert.deepEqual(logged, Array(3).fill("load /api/public/edge.json: Error: status 404"), "every request tries again");
    assert.equal((await dispatch(worker, env, new Request(ORIGIN + "/"))).status, 200, "pages do not run the worker");
  });

  test("a failed load is retried by the next request", async () => {
    const real = assets(tree);
    let fail = 1;
    const env = {
      ASSETS: {
        fetch(input) {
          const p = new URL(input instanceof Request ? input.url : input).pathname;
          if (p === "/api/public/edge.json" && fail-- > 0) {
            return new Response("unavailable", { status: 503 });
          }
          return real.fetch(input);
        },
      },
      RATE_LIMITER: rateLimiter(),
    };
    const worker = await loadWorker();
    const logged = await quietly(async () => {
      assert.equal((await worker.fetch(new Request(ORIGIN + "/api/public/life-path/7"), env)).status, 500);
    });
    assert.deepEqual(logged, ["load /api/public/edge.json: Error: status 503"]);
    assert.equal((await worker.fetch(new Request(ORIGIN + "/api/public/life-path/7"), env)).status, 200);
    assert.equal((await worker.fetch(new Request(ORIGIN + "/api/public/life-path/8"), env)).status, 200);
    assert.equal(real.fetched.filter((p) => p === "api/public/edge.json").length, 1, "loaded once after the failure");
  });
});

describe("packing units", () => {
  // edgeWith returns edge.json with the matrix route's packed files changed by change.
  const edgeWith = (change) => {
    const cfg = JSON.parse(JSON.stringify(edge));
    change(cfg.routes.find((r) => r.name === "matrix").packed);
    return Buffer.from(JSON.stringify(cfg));
  };

  test("a route packed by year is answered from the line of the day of the year", async () => {
    // The year files of 2000 and 2100: the month files of the year, joined.
    const override = new Map([["api/public/edge.json", edgeWith((p) => Object.assign(p, { file: "api/public/matrix-years/{year}.jsonl", unit: "year" }))]]);
    for (const y of [2000, 2100]) {
      const months = Array.from({ length: 12 }, (_, m) => treeFile(`api/public/matrix-months/${y}/${m + 1}.jsonl`));
      override.set(`api/public/matrix-years/${y}.jsonl`, Buffer.concat(months));
    }
    const { env, send } = await setup({ override });
    for (const [d, m, y] of [[1, 1, 2000], [29, 2, 2000], [1, 3, 2000], [31, 12, 2000], [1, 3, 2100], [31, 12, 2100]]) {
      const r = await send(`/api/public/matrix/${d}/${m}/${y}`);
      const want = treeFile(`api/public/matrix/${d}/${m}/${y}.json`);
      assert.equal(r.status, 200, `${d}.${m}.${y}`);
      assert.ok(r.body.equals(want), `${d}.${m}.${y}: the body is not the per-date file`);
      assert.equal(r.headers.get("ETag"), `"${sha256Of(`api/public/matrix/${d}/${m}/${y}.json`)}"`);
    }
    assert.ok(env.ASSETS.fetched.includes("api/public/matrix-years/2000.jsonl"));
    assert.ok(!env.ASSETS.fetched.some((p) => p.includes("matrix-months/")), "no month file is read");
  });

  test("a packing unit the worker does not know, or a file that does not hold the unit, refuses the config", async () => {
    for (const [change, want] of [
      [(p) => (p.unit = "week"), "unknown packing unit week"],
      [(p) => (p.unit = "year"), "a packed file per year holds {year}"],
    ]) {
      const { send } = await setup({ override: new Map([["api/public/edge.json", edgeWith(change)]]) });
      const logged = await quietly(async () => {
        assert.equal((await send("/api/public/life-path/7")).status, 500);
      });
      assert.equal(logged.length, 1);
      assert.match(logged[0], new RegExp(want.replace(/[{}]/g, "\\$&")));
    }
  });
});
