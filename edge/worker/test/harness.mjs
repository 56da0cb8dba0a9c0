// The worker's in-process harness: src/index.js run in Node with fakes of its two bindings.
//
//   assets(tree)      a fake ASSETS: the tree's files that Workers static assets would hold
//                     (its .assetsignore honoured), answered as Cloudflare's asset server
//                     does with wrangler.json's html_handling and not_found_handling;
//   rateLimiter(...)  a fake RATE_LIMITER: limit({key}) → {success}, a fixed window per key
//                     whose length the tests choose;
//   loadWorker()      a fresh instance of the worker module (an isolate's empty globals);
//   dispatch(...)     one request as Cloudflare routes it: /api/* to the worker first
//                     (run_worker_first), everything else to the assets;
//   listedFiles(tree) every file the tree's manifest lists, its shards' included.
//
// The Node tests (test/*.test.mjs) and the HTTP shim (test/serve.mjs) both build on it.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const workerDir = path.resolve(import.meta.dirname, "..");
const wrangler = JSON.parse(readFileSync(path.join(workerDir, "wrangler.json"), "utf8"));

// TEST_YEARS are the years of the test trees: the range's ends and a leap century, as in
// the Go edge's tests.
export const TEST_YEARS = [1900, 2000, 2100];

// testTree returns a generated tree: $NUMEROLOGY_TEST_TREE when set (the Go test that runs
// this suite generates one), else a tree of TEST_YEARS generated now with `go run`, removed
// when the process exits.
export function testTree() {
  if (process.env.NUMEROLOGY_TEST_TREE) {
    return process.env.NUMEROLOGY_TEST_TREE;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "worker-test-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, "out");
  execFileSync("go", ["run", "./cmd/numerology", "generate", "--out", out, "--years", TEST_YEARS.join(",")], {
    cwd: path.resolve(workerDir, "..", ".."),
    stdio: ["ignore", "ignore", "inherit"],
  });
  return out;
}

// listedFiles returns every file the tree's manifest lists, as [path, size, sha256]: the
// root's files, its shards and the files each shard lists (docs/design.md §9).
export function listedFiles(tree) {
  const root = JSON.parse(readFileSync(path.join(tree, "manifest.json"), "utf8"));
  const out = [...root.files, ...(root.shards || [])];
  for (const [shard] of root.shards || []) {
    out.push(...JSON.parse(readFileSync(path.join(tree, shard), "utf8")).files);
  }
  return out;
}

// ALWAYS_IGNORED are the patterns wrangler puts before the tree's own .assetsignore: the
// file itself and the two files Cloudflare reads as configuration, not as assets.
const ALWAYS_IGNORED = ["/.assetsignore", "/_redirects", "/_headers"];

// assetsIgnore returns a predicate telling whether a tree path (no leading slash) is left
// out of the assets, read as wrangler reads .assetsignore (gitignore syntax) and as
// numerology deploy does (edge/cloudflare/ignore.go): the last matching rule wins, "!"
// re-includes, a path under an ignored directory stays ignored, a pattern with a slash
// before its end is anchored at the root, "*" and "?" stay within a segment, "**" spans them.
export function assetsIgnore(content) {
  const rules = [];
  for (let line of [...ALWAYS_IGNORED, ...content.split("\n")]) {
    line = line.replace(/\r$/, "");
    while (line.endsWith(" ") && !line.endsWith("\\ ")) {
      line = line.slice(0, -1);
    }
    if (line === "" || line.startsWith("#")) {
      continue;
    }
    const rule = { negate: false, dirOnly: false };
    if (line.startsWith("!")) {
      rule.negate = true;
      line = line.slice(1);
    }
    if (line.startsWith("\\!") || line.startsWith("\\#")) {
      line = line.slice(1);
    }
    if (line.endsWith("/")) {
      rule.dirOnly = true;
      line = line.replace(/\/+$/, "");
    }
    if (line === "") {
      continue;
    }
    const anchored = line.includes("/");
    line = line.replace(/^\//, "");
    let re = anchored ? "^" : "^(?:.*/)?";
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (line.startsWith("**/", i)) {
        re += "(?:.*/)?";
        i += 2;
      } else if (line.startsWith("/**", i) && i + 3 === line.length) {
        re += "/.*";
        i += 2;
      } else if (line.startsWith("**", i)) {
        re += ".*";
        i++;
      } else if (c === "*") {
        re += "[^/]*";
      } else if (c === "?") {
        re += "[^/]";
      } else if (c === "\\" && i + 1 < line.length) {
        re += escapeRegExp(line[++i]);
      } else if (c === "[" && line.indexOf("]", i + 1) > i + 1) {
        const end = line.indexOf("]", i + 1);
        re += "[" + line.slice(i + 1, end).replace(/^!/, "^").replaceAll("\\", "\\\\") + "]";
        i = end;
      } else {
        re += escapeRegExp(c);
      }
    }
    try {
      rule.re = new RegExp(re + "$", "s");
    } catch {
      continue; // a pattern git would not match either, such as "[z-a]"
    }
    rules.push(rule);
  }
  const match = (p, isDir) => {
    let ignored = false;
    for (const r of rules) {
      if ((!r.dirOnly || isDir) && r.negate === ignored && r.re.test(p)) {
        ignored = !r.negate;
      }
    }
    return ignored;
  };
  return (rel) => {
    for (let i = rel.indexOf("/"); i >= 0; i = rel.indexOf("/", i + 1)) {
      if (match(rel.slice(0, i), true)) {
        return true;
      }
    }
    return match(rel, false);
  };
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

// assetFiles lists the files of tree that Workers static assets would hold.
export function assetFiles(tree) {
  let ignoreFile = "";
  try {
    ignoreFile = readFileSync(path.join(tree, ".assetsignore"), "utf8");
  } catch (err) {
    if (err.code !== "ENOENT") {
      throw err;
    }
  }
  const ignored = assetsIgnore(ignoreFile);
  const files = new Set();
  const walk = (dir, rel) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = rel + e.name;
      if (e.isDirectory()) {
        walk(path.join(dir, e.name), r + "/");
      } else if (!ignored(r)) {
        files.add(r);
      }
    }
  };
  walk(tree, "");
  return files;
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json",
  ".jsonl": "application/jsonl",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".csv": "text/csv; charset=utf-8",
  ".zip": "application/zip",
  ".gz": "application/gzip",
};

// assets returns a fake of the ASSETS binding serving tree. Options:
//   override: Map of tree path → bytes (a changed file) or null (a file not uploaded);
//   edit(path, bytes): returns the bytes to serve for a file (edge.json with a short window);
//   body(bytes): returns the body to answer a file's bytes with (a stream that delivers them
//   in small pieces), instead of the bytes.
// fetched lists the tree paths the binding was asked for, in order, for the tests.
export function assets(tree, { override = new Map(), edit = null, body: bodyOf = null } = {}) {
  const files = assetFiles(tree);
  for (const [p, b] of override) {
    b === null ? files.delete(p) : files.add(p);
  }
  const cache = new Map();
  const read = (p) => {
    if (!cache.has(p)) {
      let b = override.has(p) ? override.get(p) : readFileSync(path.join(tree, p));
      if (edit) {
        b = edit(p, b);
      }
      cache.set(p, { bytes: b, hash: createHash("sha256").update(b).digest("hex") });
    }
    return cache.get(p);
  };
  const exists = (p) => p.startsWith("/") && files.has(p.slice(1));
  const sameContent = (a, b) => a === b || read(a).hash === read(b).hash;
  const html = htmlHandling(exists, sameContent);
  // _headers is never an asset (wrangler leaves it out) but configures the asset server.
  const headersFile = path.join(tree, "_headers");
  const rules = existsSync(headersFile) ? headerRules(readFileSync(headersFile, "utf8")) : [];
  const fetched = [];
  return {
    fetched,
    files,
    async fetch(input, init) {
      const request = input instanceof Request && init === undefined ? input : new Request(input, init);
      const url = new URL(request.url);
      const p = decodeAssetPath(url.pathname);
      let intent = html(p);
      if (!intent.redirect && encodeAssetPath(p) !== url.pathname) {
        intent = { redirect: p }; // any path is answered at its canonical (encoded) spelling only
      }
      // As the asset worker: another method is refused (no body, no header but the rules')
      // for a path it would answer, after the redirects are decided.
      const method = request.method;
      if (method !== "GET" && method !== "HEAD" && (intent.file || intent.redirect)) {
        return new Response(null, { status: 405, headers: applyHeaderRules(rules, url.pathname, {}) });
      }
      if (intent.redirect) {
        const headers = { Location: encodeAssetPath(intent.redirect) + url.search };
        return new Response(null, { status: 307, headers: applyHeaderRules(rules, url.pathname, headers) });
      }
      if (!intent.file) {
        fetched.push(p.slice(1));
        return new Response(null, { status: 404, headers: applyHeaderRules(rules, url.pathname, {}) });
      }
      fetched.push(intent.file);
      const { bytes, hash } = read(intent.file);
      // The asset server's own validator, the asset hash numerology deploy registers (the
      // first 32 hex digits of sha256(sha256 hex "." extension)): not the body's sha256 the
      // worker answers with.
      const ext = path.extname(intent.file).slice(1);
      const etag = `"${createHash("sha256").update(hash + "." + ext).digest("hex").slice(0, 32)}"`;
      const own = { "Content-Type": TYPES[path.extname(intent.file)] || "application/octet-stream", ETag: etag };
      // No Cache-Control for a request the asset worker does not count cacheable.
      if (!request.headers.has("Authorization") && !request.headers.has("Range")) {
        own["Cache-Control"] = "public, max-age=0, must-revalidate";
      }
      const headers = applyHeaderRules(rules, url.pathname, own);
      // Cloudflare's asset server compares one validator, strong or weak, and nothing else:
      // a list, "*" or a second header line gets the full answer (docs/design.md §4).
      const inm = request.headers.get("If-None-Match");
      if (inm === etag || inm === "W/" + etag) {
        return new Response(null, { status: 304, headers });
      }
      headers["Content-Length"] = String(bytes.byteLength);
      const body = request.method === "HEAD" ? null : bodyOf ? bodyOf(bytes) : bytes;
      return new Response(body, { status: intent.status, headers });
    },
  };
}

// headerRules parses a _headers file as the asset server reads it: a line that starts with
// "/" opens a rule for that path pattern ("*" matches anything, ":name" one segment), and
// the indented "Name: value" lines under it set headers ("! Name" removes one).
function headerRules(text) {
  const rules = [];
  let cur = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) {
      continue;
    }
    if (line.startsWith("/")) {
      const re = "^" + line.split("*").map((part) => escapeRegExp(part).replace(/:[A-Za-z]\w*/g, "[^/]+")).join(".*") + "$";
      cur = { re: new RegExp(re), set: [], unset: [] };
      rules.push(cur);
    } else if (cur && line.startsWith("!")) {
      cur.unset.push(line.slice(1).trim());
    } else if (cur && line.includes(":")) {
      const i = line.indexOf(":");
      cur.set.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
    }
  }
  return rules;
}

// applyHeaderRules applies the rules matching pathname to headers, as the Go edge's
// headerRules.apply does: a rule's value replaces the asset server's own, and two rules
// setting one header join their values with ", ".
function applyHeaderRules(rules, pathname, headers) {
  const h = new Headers(headers);
  const setBy = new Set();
  for (const r of rules) {
    if (!r.re.test(pathname)) {
      continue;
    }
    for (const k of r.unset) {
      h.delete(k);
    }
    for (const [k, v] of r.set) {
      const key = k.toLowerCase();
      if (setBy.has(key) && h.has(k)) {
        h.set(k, h.get(k) + ", " + v);
      } else {
        setBy.add(key);
        h.set(k, v);
      }
    }
  }
  return Object.fromEntries(h);
}

// htmlHandling resolves a decoded path the way the asset server does for html_handling
// "auto-trailing-slash" and not_found_handling "404-page" (the Go edge's assetIntent in
// edge/server/static.go is the same logic): a file is served at its name without ".html", a
// folder's index.html at the folder's path with a slash, the other spellings of either are
// redirected there, and anything else gets the nearest 404.html with status 404.
function htmlHandling(exists, sameContent) {
  if (wrangler.assets.html_handling !== "auto-trailing-slash" || wrangler.assets.not_found_handling !== "404-page") {
    throw new Error("wrangler.json: the fake ASSETS implements auto-trailing-slash and 404-page only");
  }
  const intent = (p, skip) => {
    const redirect = (file, dest) => {
      if (skip || exists(dest) || !exists(file)) {
        return null;
      }
      // Redirect only when the destination would serve this very file.
      const to = intent(dest, true);
      return to.file && to.status === 200 && sameContent(to.file, file.slice(1)) ? { redirect: dest } : null;
    };
    const serve = (file) => ({ file: file.slice(1), status: 200 });
    let tries = [];
    if (p.endsWith("/index")) {
      if (exists(p)) {
        return serve(p);
      }
      tries = [[p + ".html", p.slice(0, -"index".length)], [p.slice(0, -"/index".length) + ".html", p.slice(0, -"/index".length)]];
    } else if (p.endsWith("/index.html")) {
      const dir = p.slice(0, -"index.html".length);
      tries = [[p, dir], [dir.slice(0, -1) + ".html", dir.slice(0, -1)]];
    } else if (p.endsWith("/")) {
      if (exists(p + "index.html")) {
        return serve(p + "index.html");
      }
      tries = [[p.slice(0, -1) + ".html", p.slice(0, -1)]];
    } else if (p.endsWith(".html")) {
      const base = p.slice(0, -".html".length);
      tries = [[p, base], [base + "/index.html", base + "/"]];
    }
    for (const [file, dest] of tries) {
      const r = redirect(file, dest);
      if (r) {
        return r;
      }
    }
    if (exists(p)) {
      return serve(p);
    }
    if (exists(p + ".html")) {
      return serve(p + ".html");
    }
    const r = redirect(p + "/index.html", p + "/");
    if (r) {
      return r;
    }
    for (let cwd = p; cwd !== ""; ) {
      cwd = cwd.slice(0, cwd.lastIndexOf("/"));
      if (exists(cwd + "/404.html")) {
        return { file: (cwd + "/404.html").slice(1), status: 404 };
      }
    }
    return {};
  };
  return (p) => intent(p, false);
}

// decodeAssetPath decodes each segment of a URL path and folds repeated slashes, as the
// asset server does; a segment that does not decode stays as it is.
function decodeAssetPath(raw) {
  const p = raw
    .split("/")
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    })
    .join("/");
  return p.replace(/\/{2,}/g, "/");
}

// encodeAssetPath encodes each segment with encodeURIComponent: the canonical path of an asset.
function encodeAssetPath(p) {
  return p.split("/").map(encodeURIComponent).join("/");
}

// rateLimiter returns a fake of the Rate Limiting binding: at most limit admitted requests
// per key in a window of periodSeconds that starts at the key's first admitted request
// (the real binding's windows are approximate; this one is exact, so tests cannot race a
// window's edge). Refused requests are not counted. keys lists every key it was asked
// about, in order. failing makes limit() throw, as a binding in trouble would.
export function rateLimiter({ limit = 60, periodSeconds = 60, now = Date.now } = {}) {
  const windows = new Map();
  const keys = [];
  const binding = {
    keys,
    failing: false,
    async limit(options) {
      const extra = Object.keys(options ?? {}).filter((k) => k !== "key");
      if (typeof options?.key !== "string" || extra.length > 0) {
        throw new Error(`rate limit options: want {key: string}, got ${JSON.stringify(options)}`);
      }
      keys.push(options.key);
      if (binding.failing) {
        throw new Error("rate limiter unavailable");
      }
      const t = now();
      let w = windows.get(options.key);
      if (!w || t - w.start >= periodSeconds * 1000) {
        w = { start: t, count: 0 };
        windows.set(options.key, w);
      }
      if (w.count >= limit) {
        return { success: false };
      }
      w.count++;
      return { success: true };
    },
  };
  return binding;
}

let instances = 0;

// loadWorker imports a fresh instance of src/index.js: a module of its own, with its own
// globals (the edge config it loads once), as a new isolate would have.
export async function loadWorker() {
  const url = pathToFileURL(path.join(workerDir, "src", "index.js"));
  url.search = `instance=${++instances}`;
  return (await import(url.href)).default;
}

// runsWorkerFirst reports whether a URL path runs the worker before the assets: the globs
// of wrangler.json's run_worker_first ("/api/*").
const workerFirst = (wrangler.assets.run_worker_first || []).map(
  (g) => new RegExp("^" + g.split("*").map(escapeRegExp).join(".*") + "$", "s"),
);
export function runsWorkerFirst(pathname) {
  return workerFirst.some((re) => re.test(pathname));
}

// dispatch answers a request as Cloudflare does for this wrangler.json: the worker for the
// paths of run_worker_first, the assets directly for the others.
export function dispatch(worker, env, request, ctx = {}) {
  if (runsWorkerFirst(new URL(request.url).pathname)) {
    return worker.fetch(request, env, ctx);
  }
  return env.ASSETS.fetch(request);
}

// windowEdit returns an edit for assets() that serves edge.json with the rate limit's window
// set to seconds, so that a suite waiting out a Retry-After waits seconds, not a minute.
export function windowEdit(seconds) {
  return (p, bytes) => {
    if (p !== "api/public/edge.json") {
      return bytes;
    }
    const cfg = JSON.parse(Buffer.from(bytes).toString("utf8"));
    cfg.rate_limit.window_seconds = seconds;
    return Buffer.from(JSON.stringify(cfg));
  };
}
