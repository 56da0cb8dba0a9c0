// Open Numerology Data API on Cloudflare Workers.
//
// The generated out/ tree is served as static assets. Requests under /api/* reach this
// worker first (run_worker_first in wrangler.json): it routes them as DESIGN.md §3 says,
// rate-limits the matrix route and sets the headers of §4 on every answer. Everything it
// needs besides the files (header sets, prebuilt error bodies, valid numbers, route files,
// the rate limit) comes from the tree's api/public/edge.json, written by `numerology
// generate`, so nothing of the contract is written here a second time.
//
// One self-contained ES module with no imports: it is uploaded as-is, without a bundler.

const EDGE_FILE = "/api/public/edge.json";

// Answer when edge.json itself cannot be loaded: the prebuilt bodies are unavailable too.
const FALLBACK_BODY =
  '{"error":"Internal error","status":500,"message":"Внутренняя ошибка сервера: конфигурация недоступна."}\n';

// The per-isolate promise of the parsed edge config; reset when loading fails so that the
// next request retries.
let configPromise = null;

export default {
  async fetch(request, env, ctx) {
    const path = rawPath(request.url);
    if (!path.startsWith("/api/")) {
      // Only /api/* runs the worker first; anything else is a plain asset.
      return env.ASSETS.fetch(request);
    }
    let cfg;
    try {
      cfg = await loadConfig(env, request.url);
    } catch (err) {
      console.error(`load ${EDGE_FILE}: ${err}`);
      return new Response(FALLBACK_BODY, {
        status: 500,
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "Cache-Control": "no-store",
          "Access-Control-Allow-Origin": "*",
        },
      });
    }
    if (path !== cfg.prefix && !path.startsWith(cfg.prefix + "/")) {
      return env.ASSETS.fetch(request);
    }
    return handle(request, env, cfg, path);
  },
};

// handle answers one request under the API prefix, in the order of §3: preflight, rate
// limit (matrix route, before validation), method, route.
async function handle(request, env, cfg, path) {
  const method = request.method;
  if (method === "OPTIONS") {
    return new Response(null, { status: 204, headers: cfg.headers.preflight });
  }
  if (path === cfg.limitPrefix || path.startsWith(cfg.limitPrefix + "/")) {
    const limited = await overLimit(request, env, cfg);
    if (limited) {
      return errorResponse(cfg, "too_many_requests", method, {
        "Retry-After": String(cfg.rateLimit.window_seconds),
      });
    }
  }
  if (method !== "GET" && method !== "HEAD") {
    return errorResponse(cfg, "method_not_allowed", method);
  }
  const route = match(cfg, path);
  if (route.error) {
    return errorResponse(cfg, route.error, method);
  }
  return fileResponse(request, env, cfg, route.file);
}

// match maps a raw path under the prefix to {file} or {error}.
function match(cfg, path) {
  let rest = path.slice(cfg.prefix.length);
  if (rest.endsWith("/")) {
    rest = rest.slice(0, -1); // one trailing slash is tolerated
  }
  if (rest === "") {
    return { file: cfg.files.index };
  }
  if (rest === "/openapi.json") {
    return { file: cfg.files.openapi };
  }
  if (rest === "/life-path") {
    return { file: cfg.files["life-path-list"] };
  }
  if (rest.startsWith("/life-path/")) {
    const n = numeric(rest.slice("/life-path/".length));
    if (n === null || !cfg.validNumbers.has(n)) {
      return { error: "number_not_found" };
    }
    return { file: cfg.files["life-path"].replace("{number}", n) };
  }
  if (rest === "/matrix" || rest.startsWith("/matrix/")) {
    const parts = rest.slice("/matrix/".length).split("/");
    if (parts.length !== 3) {
      return { error: "invalid_date" };
    }
    const [d, m, y] = parts.map(numeric);
    if (d === null || m === null || y === null || !validDate(cfg, d, m, y)) {
      return { error: "invalid_date" };
    }
    return {
      file: cfg.files.matrix.replace("{day}", d).replace("{month}", m).replace("{year}", y),
    };
  }
  return { error: "not_found" };
}

// numeric parses a segment of 1–9 ASCII digits (leading zeros allowed); null otherwise.
function numeric(s) {
  if (s.length < 1 || s.length > 9) {
    return null;
  }
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) {
      return null;
    }
  }
  return Number(s);
}

// validDate reports whether d.m.y is a real Gregorian date within the contract's years.
function validDate(cfg, d, m, y) {
  if (y < cfg.firstYear || y > cfg.lastYear || m < 1 || m > 12 || d < 1) {
    return false;
  }
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

// fileResponse answers 200 (or 304) with a file of the tree, replacing the asset's own
// headers with §4's; a missing file of a valid route is a 500.
async function fileResponse(request, env, cfg, file) {
  const asset = await env.ASSETS.fetch(new URL("/" + file, request.url), { method: "GET" });
  if (asset.status !== 200) {
    console.error(`asset ${file}: status ${asset.status}`);
    return errorResponse(cfg, "internal_error", request.method);
  }
  const body = await asset.arrayBuffer();
  const etag = '"' + hex(await crypto.subtle.digest("SHA-256", body)) + '"';
  if (etagMatches(request.headers.get("If-None-Match"), etag)) {
    const headers = cfg.withStatus(304);
    headers.ETag = etag;
    return new Response(null, { status: 304, headers });
  }
  const headers = cfg.withStatus(200);
  headers.ETag = etag;
  if (request.method === "HEAD") {
    headers["Content-Length"] = String(body.byteLength);
    return new Response(null, { status: 200, headers });
  }
  return new Response(body, { status: 200, headers });
}

// errorResponse answers with a prebuilt error body of the tree (byte-identical).
function errorResponse(cfg, key, method, extra) {
  const e = cfg.errors[key];
  const headers = cfg.withStatus(e.status);
  if (extra) {
    Object.assign(headers, extra);
  }
  if (method === "HEAD") {
    headers["Content-Length"] = String(e.bytes.byteLength);
    return new Response(null, { status: e.status, headers });
  }
  return new Response(e.bytes, { status: e.status, headers });
}

// etagMatches implements If-None-Match's weak comparison against a strong ETag.
function etagMatches(header, etag) {
  if (!header) {
    return false;
  }
  for (let tag of header.split(",")) {
    tag = tag.trim();
    if (tag === "*") {
      return true;
    }
    if (tag.startsWith("W/")) {
      tag = tag.slice(2);
    }
    if (tag === etag) {
      return true;
    }
  }
  return false;
}

// overLimit counts one request of the client against the Rate Limiting binding and
// reports whether it is over the limit.
async function overLimit(request, env, cfg) {
  if (!env.RATE_LIMITER) {
    throw new Error("RATE_LIMITER binding is not configured");
  }
  const key = clientKey(request, cfg.rateLimit.ipv6_prefix);
  try {
    const { success } = await env.RATE_LIMITER.limit({ key });
    return !success;
  } catch (err) {
    // Spam protection must not take the API down: admit the request when the limiter fails.
    console.error(`rate limiter: ${err}`);
    return false;
  }
}

// clientKey is the rate limit key of a request: its client address, IPv6 grouped by prefix.
function clientKey(request, v6Bits) {
  // Cloudflare sets CF-Connecting-IP on every request; wrangler dev sets it only when absent.
  const ip = (request.headers.get("CF-Connecting-IP") || "").trim();
  return ip.includes(":") ? ipv6Key(ip, v6Bits) : ip;
}

// ipv6Key returns the first bits of an IPv6 address as a key, "v6:" + hex groups; an
// IPv4-mapped address gives its IPv4 form.
function ipv6Key(ip, bits) {
  ip = ip.split("%")[0].toLowerCase(); // drop a zone
  let groups = [];
  const halves = ip.split("::");
  if (halves.length > 2) {
    return "v6:" + ip;
  }
  const parse = (s) => (s === "" ? [] : s.split(":"));
  let head = parse(halves[0]);
  let tail = halves.length === 2 ? parse(halves[1]) : [];
  const all = head.concat(tail);
  const last = all[all.length - 1] || "";
  let v4 = null;
  if (last.includes(".")) {
    v4 = last;
    if (tail.length > 0) {
      tail = tail.slice(0, -1);
    } else {
      head = head.slice(0, -1);
    }
  }
  const want = v4 === null ? 8 : 6;
  const fill = halves.length === 2 ? want - head.length - tail.length : 0;
  if (fill < 0 || head.length + fill + tail.length !== want) {
    return "v6:" + ip;
  }
  groups = head.concat(Array(fill).fill("0"), tail).map((g) => parseInt(g, 16) || 0);
  if (v4 !== null) {
    if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
      return v4; // IPv4-mapped: the IPv4 client itself
    }
    const o = v4.split(".").map((x) => Number(x) & 255);
    groups.push((o[0] << 8) | o[1], (o[2] << 8) | o[3]);
  }
  const keep = [];
  for (let i = 0; i < 8; i++) {
    const left = bits - i * 16;
    const mask = left >= 16 ? 0xffff : left <= 0 ? 0 : (0xffff << (16 - left)) & 0xffff;
    keep.push((groups[i] & mask).toString(16));
  }
  return "v6:" + keep.join(":") + "/" + bits;
}

// rawPath returns the request-target's path as received, still percent-encoded.
function rawPath(url) {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) {
    return "/";
  }
  let end = url.length;
  for (const c of ["?", "#"]) {
    const i = url.indexOf(c, start);
    if (i >= 0 && i < end) {
      end = i;
    }
  }
  return url.slice(start, end);
}

// hex encodes a digest as lowercase hex.
function hex(buf) {
  const b = new Uint8Array(buf);
  let s = "";
  for (let i = 0; i < b.length; i++) {
    s += b[i].toString(16).padStart(2, "0");
  }
  return s;
}

// loadConfig loads and prepares edge.json once per isolate.
function loadConfig(env, base) {
  if (configPromise === null) {
    configPromise = fetchConfig(env, base).catch((err) => {
      configPromise = null;
      throw err;
    });
  }
  return configPromise;
}

async function fetchConfig(env, base) {
  const res = await env.ASSETS.fetch(new URL(EDGE_FILE, base));
  if (res.status !== 200) {
    throw new Error(`status ${res.status}`);
  }
  const raw = await res.json();
  const files = {};
  for (const r of raw.routes) {
    files[r.name] = r.file;
  }
  const enc = new TextEncoder();
  const errors = {};
  for (const [key, e] of Object.entries(raw.errors)) {
    errors[key] = { status: e.status, bytes: enc.encode(e.body) };
  }
  for (const key of [
    "invalid_date",
    "number_not_found",
    "not_found",
    "method_not_allowed",
    "too_many_requests",
    "internal_error",
  ]) {
    if (!errors[key]) {
      throw new Error(`no error body ${key}`);
    }
  }
  const common = raw.headers.common;
  const byStatus = raw.headers.by_status;
  return {
    prefix: raw.prefix,
    firstYear: raw.first_year,
    lastYear: raw.last_year,
    validNumbers: new Set(raw.valid_numbers),
    rateLimit: raw.rate_limit,
    limitPrefix: raw.rate_limit.path_prefix,
    files,
    errors,
    headers: raw.headers,
    // withStatus returns a fresh header object: the common set plus the status's own.
    withStatus(status) {
      return Object.assign({}, common, byStatus[String(status)]);
    },
  };
}
