// The fakes of test/harness.mjs, checked on their own: the worker's tests are only as good
// as the bindings they run it with.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { assets, assetsIgnore, rateLimiter, runsWorkerFirst } from "./harness.mjs";

describe(".assetsignore", () => {
  test("the generated rules", () => {
    const ignored = assetsIgnore("# comment\n/api/public/matrix/\n/api/public/errors/\n");
    for (const p of ["api/public/matrix/1/1/2000.json", "api/public/errors/not-found.json", ".assetsignore", "_headers", "_redirects"]) {
      assert.ok(ignored(p), p);
    }
    for (const p of ["api/public/matrix-months/2000/1.jsonl", "api/public/edge.json", "matrix/x.html", "sub/_headers", "index.html"]) {
      assert.ok(!ignored(p), p);
    }
  });

  test("gitignore's rules, as wrangler and numerology deploy read them", () => {
    const ignored = assetsIgnore(
      "*.html\n!/index.html\n!life-path/3?.html\n/life-path/?.html\n/assets/*.js\nllms.txt\n**/life-path/22.json\n# /404.html\n/matrix/\n!/matrix/keep.txt\n\\#hash\nspace\\ \r\n",
    );
    const cases = {
      "index.html": false, // re-included
      "404.html": true,
      "life-path/33.html": false, // re-included
      "life-path/7.html": true,
      "assets/app.js": true,
      "assets/sub/app.js": false, // "*" stays within a segment
      "llms.txt": true,
      "deep/llms.txt": true, // unanchored
      "api/public/life-path/22.json": true,
      "life-path/22.json": true, // "**/" matches no folder too
      "matrix/x.txt": true,
      "matrix/keep.txt": true, // under an ignored folder: stays ignored
      "#hash": true,
      "space ": true,
      "matrix.txt": false,
    };
    for (const [p, want] of Object.entries(cases)) {
      assert.equal(ignored(p), want, p);
    }
  });
});

describe("assets", () => {
  let dir, a;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "worker-assets-"));
    const files = {
      "index.html": "<p>home",
      "about.html": "<p>about",
      "life-path/index.html": "<p>numbers",
      "404.html": "<p>not here",
      "sub/404.html": "<p>sub not here",
      "data.csv": "a,b\n",
      "hidden/x.json": "{}",
      ".assetsignore": "/hidden/\n",
    };
    for (const [p, body] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      writeFileSync(path.join(dir, p), body);
    }
    a = assets(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases = [
    ["/", 200, "<p>home"],
    ["/index.html", 307, "/"],
    ["/index", 307, "/"],
    ["/about", 200, "<p>about"],
    ["/about.html", 307, "/about"],
    ["/about/", 307, "/about"],
    ["/%61bout", 307, "/about"],
    ["/life-path", 307, "/life-path/"],
    ["/life-path/", 200, "<p>numbers"],
    ["/life-path/index.html", 307, "/life-path/"],
    ["/data.csv", 200, "a,b\n"],
    ["/nope", 404, "<p>not here"],
    ["/sub/nope", 404, "<p>sub not here"],
    ["/hidden/x.json", 404, "<p>not here"],
    ["/.assetsignore", 404, "<p>not here"],
    ["/about?x=1", 200, "<p>about"],
    ["/about.html?x=1", 307, "/about?x=1"],
  ];
  for (const [target, status, want] of cases) {
    test(target, async () => {
      const r = await a.fetch(new Request("https://x.example" + target));
      assert.equal(r.status, status);
      if (status === 307) {
        assert.equal(r.headers.get("Location"), want);
      } else {
        assert.equal(await r.text(), want);
      }
    });
  }

  test("HEAD, conditional requests and other methods", async () => {
    const get = await a.fetch(new Request("https://x.example/about"));
    const etag = get.headers.get("ETag");
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    const head = await a.fetch(new Request("https://x.example/about", { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("Content-Length"), "8");
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const cond = await a.fetch(new Request("https://x.example/about", { headers: { "If-None-Match": etag } }));
    assert.equal(cond.status, 304);
    assert.equal((await a.fetch(new Request("https://x.example/about", { method: "POST" }))).status, 405);
  });

  test("override and fetched", async () => {
    const b = assets(dir, { override: new Map([["about.html", null], ["new.txt", Buffer.from("new")]]) });
    assert.equal((await b.fetch(new URL("https://x.example/about"))).status, 404);
    assert.equal(await (await b.fetch("https://x.example/new.txt")).text(), "new");
    assert.deepEqual(b.fetched, ["404.html", "new.txt"]);
  });
});

describe("RATE_LIMITER", () => {
  test("a window per key from its first request; refusals are not counted", async () => {
    let now = 1_000_000;
    const rl = rateLimiter({ limit: 2, periodSeconds: 10, now: () => now });
    const ok = async (key) => (await rl.limit({ key })).success;
    assert.equal(await ok("a"), true);
    now += 9_000;
    assert.equal(await ok("a"), true);
    assert.equal(await ok("a"), false);
    assert.equal(await ok("b"), true, "another key");
    now += 999;
    assert.equal(await ok("a"), false, "the window is not over");
    now += 1;
    assert.equal(await ok("a"), true, "a new window");
    assert.deepEqual(rl.keys, ["a", "a", "a", "b", "a", "a"]);
  });

  test("bad options and a failing binding throw", async () => {
    const rl = rateLimiter();
    await assert.rejects(rl.limit({ key: 1 }));
    await assert.rejects(rl.limit({ key: "a", extra: 1 }));
    await assert.rejects(rl.limit());
    rl.failing = true;
    await assert.rejects(rl.limit({ key: "a" }), /unavailable/);
  });
});

test("run_worker_first", () => {
  assert.ok(runsWorkerFirst("/api/public"));
  assert.ok(runsWorkerFirst("/api/publicx"));
  assert.ok(!runsWorkerFirst("/api"));
  assert.ok(!runsWorkerFirst("/"));
  assert.ok(!runsWorkerFirst("//api/public"));
});
