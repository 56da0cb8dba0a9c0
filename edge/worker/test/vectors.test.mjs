// The shared vectors of edge/testdata/vectors.json, sent through the worker as Cloudflare
// would run it (edge/server/vectors_test.go sends them through the Go server): every case
// is a whole request, and only what comes back is checked.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, test } from "node:test";
import { assets, dispatch, listedFiles, loadWorker, rateLimiter, testTree } from "./harness.mjs";

const vectors = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "testdata", "vectors.json"), "utf8"));
const ORIGIN = "https://numerology.example";
// The key the worker gives a request whose CF-Connecting-IP is not an address.
const UNKNOWN_CLIENT = "unknown";

let tree, listed, edge, worker, env;
before(async () => {
  tree = testTree();
  listed = listedFiles(tree);
  edge = JSON.parse(readFileSync(path.join(tree, "api", "public", "edge.json"), "utf8"));
  worker = await loadWorker();
  // A limit no case reaches: the cases check routing and keys, not the limit.
  env = { ASSETS: assets(tree), RATE_LIMITER: rateLimiter({ limit: 1e9 }) };
});

// send answers a raw request target, as the client 192.0.2.1 unless headers name another.
async function send(target, headers = {}) {
  const request = new Request(ORIGIN + target, { headers: { "CF-Connecting-IP": "192.0.2.1", ...headers } });
  const response = await dispatch(worker, env, request);
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

// expectFile checks a 200 with the body of a tree file, or a 500 when the tree lacks it.
function expectFile(what, r, file) {
  if (!listed.some(([p]) => p === file)) {
    assert.equal(r.status, 500, `${what}: status ${r.status}, want 500 (${file} is not in the tree)`);
    assert.equal(r.body.toString(), edge.errors.internal_error.body);
    return;
  }
  assert.equal(r.status, 200, `${what}: status ${r.status} (${r.body.toString().slice(0, 120)}), want 200 ${file}`);
  assert.ok(r.body.equals(readFileSync(path.join(tree, file))), `${what}: the body is not ${file}`);
}

// expectError checks a prebuilt error answer of edge.json.
function expectError(what, r, key) {
  const e = edge.errors[key];
  assert.ok(e, `no error ${key} in edge.json`);
  assert.equal(r.status, e.status, `${what}: status ${r.status} (${r.body.toString().slice(0, 120)}), want ${e.status} ${key}`);
  assert.equal(r.body.toString(), e.body, `${what}: body`);
}

describe("client key", () => {
  const { ipv6_prefix: bits, cases } = vectors.client_key;
  test("the vectors' prefix is edge.json's", () => {
    assert.equal(edge.rate_limit.ipv6_prefix, bits);
  });
  for (const c of cases) {
    test(c.name, async () => {
      const keys = env.RATE_LIMITER.keys;
      const n = keys.length;
      const r = await send("/api/public/matrix/1/1/2000", { "CF-Connecting-IP": c.header });
      assert.equal(r.status, 200);
      assert.equal(keys.length, n + 1, "one count per matrix request");
      assert.equal(keys[n], c.key ?? UNKNOWN_CLIENT, `CF-Connecting-IP ${JSON.stringify(c.header)}`);
    });
  }
});

describe("date", () => {
  for (const c of vectors.date.cases) {
    test(c.name, async () => {
      const r = await send("/api/public/matrix/" + c.date);
      if (c.valid === false) {
        expectError(c.date, r, "invalid_date");
      } else {
        expectFile(c.date, r, c.file);
      }
    });
  }
});

describe("If-None-Match", () => {
  const target = "/api/public/life-path/7";
  let etag;
  before(async () => {
    etag = (await send(target)).headers.get("ETag");
    assert.match(etag, /^"[0-9a-f]{64}"$/);
  });
  for (const c of vectors.if_none_match.cases) {
    test(c.name, async () => {
      const other = '"' + "0".repeat(64) + '"';
      const header = c.header
        .replaceAll("{etag}", etag)
        .replaceAll("{other}", other)
        .replaceAll("{etag-unquoted}", etag.slice(1, -1))
        .replaceAll("{etag-upper}", etag.toUpperCase());
      const r = await send(target, { "If-None-Match": header });
      assert.equal(r.status, c.match ? 304 : 200, `If-None-Match ${JSON.stringify(header)}`);
      assert.equal(r.headers.get("ETag"), etag);
    });
  }
});

describe("path", () => {
  for (const c of vectors.path.cases) {
    test(c.name, async () => {
      const r = await send(c.path);
      if (c.want === "assets") {
        assert.equal(r.headers.get("X-API-License"), null, `${c.path}: an API answer (${r.status}), want the assets'`);
      } else if (c.want in edge.errors) {
        expectError(c.path, r, c.want);
      } else {
        expectFile(c.path, r, c.want);
      }
    });
  }
});
