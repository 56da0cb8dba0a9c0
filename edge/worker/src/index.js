// Open Numerology Data API on Cloudflare Workers. The out/ tree is served as static assets;
// /api/* runs this worker first (wrangler.json): it routes as docs/design.md §3 says, limits the
// matrix route and sets §4's headers on every answer. Header sets, error bodies, valid
// numbers, route files and the limit come from the tree's api/public/edge.json. Matrix
// records come from the packed month files (docs/worker.md): the per-date files are not
// among the assets (.assetsignore), and this worker never asks for one.
// One self-contained ES module with no imports: it is uploaded as-is, without a bundler.

const EDGE_FILE = "/api/public/edge.json";

// The answer when edge.json cannot be loaded, and with it the prebuilt bodies.
const FALLBACK_BODY =
  '{"error":"Internal error","status":500,"message":"Внутренняя ошибка сервера: конфигурация API недоступна. Повторите запрос через минуту; если ошибка не проходит, напишите нам — адрес есть внизу главной страницы сайта."}\n';

// The per-isolate promise of the edge config; reset on failure so the next request retries.
let configPromise = null;

export default {
  async fetch(request, env) {
    const path = rawPath(request.url);
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
    if (!under(path, cfg.prefix)) {
      return env.ASSETS.fetch(request); // not the API: a plain asset
    }
    return handle(request, env, cfg, path);
  },
};

// handle answers a request under the API prefix in §3's order: preflight, rate limit
// (matrix route, before validation), method, route.
async function handle(request, env, cfg, path) {
  const method = request.method;
  if (method === "OPTIONS") {
    return new Response(null, { status: 204, headers: cfg.preflight });
  }
  if (rateLimited(cfg, path)) {
    if (!env.RATE_LIMITER) {
      console.error("RATE_LIMITER binding is not configured");
      return errorResponse(cfg, "internal_error", method);
    }
    if (await overLimit(request, env, cfg)) {
      return errorResponse(cfg, "too_many_requests", method, {
        "Retry-After": String(cfg.limit.window_seconds),
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
  if (route.date) {
    return recordResponse(request, env, cfg, route.date);
  }
  return fileResponse(request, env, cfg, route.file);
}

// under reports whether path is prefix itself or under it.
function under(path, prefix) {
  return path === prefix || path.startsWith(prefix + "/");
}

// match maps a raw path under the prefix to {route, params, file} or {error}: the first
// route of edge.json whose segments match and whose check admits the parameters; else the
// error of the narrowest route scope that holds the path; else not found.
function match(cfg, path) {
  if (path.endsWith("/")) {
    path = path.slice(0, -1); // one trailing slash is tolerated
  }
  const segs = path.slice(cfg.prefix.length).split("/").slice(1);
  for (const route of cfg.compiled) {
    const params = matchSegments(route.segs, segs);
    if (params !== null && (params.length === 0 || route.check(params))) {
      if (route.checkName === "date") {
        // A date's record is answered from its packed month file (docs/design.md §10).
        return { route: route.name, params, date: params };
      }
      return { route: route.name, params, file: route.file.replace(/\{(\w+)\}/g, (_, n) => params[route.names.indexOf(n)]) };
    }
  }
  let best = null;
  for (const route of cfg.compiled) {
    if (route.error && under(path, route.scope) && (best === null || route.scope.length > best.scope.length)) {
      best = route;
    }
  }
  return { error: best ? best.error : "not_found" };
}

// matchSegments returns the numeric parameters of segs when they have the route's shape
// (a literal, or "{name}" for a numeric segment), null otherwise.
function matchSegments(shape, segs) {
  if (shape.length !== segs.length) {
    return null;
  }
  const params = [];
  for (let i = 0; i < shape.length; i++) {
    if (shape[i].startsWith("{")) {
      const n = numeric(segs[i]);
      if (n === null) {
        return null;
      }
      params.push(n);
    } else if (shape[i] !== segs[i]) {
      return null;
    }
  }
  return params;
}

// numeric parses a segment of 1–9 ASCII digits, leading zeros allowed; null otherwise.
function numeric(s) {
  return /^[0-9]{1,9}$/.test(s) ? Number(s) : null;
}

// CHECKS are the parameter validators a route names in edge.json (its "check").
const CHECKS = {
  life_path_number: (cfg, [n]) => cfg.validNumbers.has(n),
  date: (cfg, [d, m, y]) => validDate(cfg, d, m, y),
};

// compileRoutes prepares the route table of edge.json for match; an unknown check is a
// configuration error.
function compileRoutes(cfg) {
  return cfg.routes.map((r) => {
    const check = CHECKS[r.check];
    const shape = r.pattern.slice(cfg.prefix.length).split("/").slice(1);
    const names = shape.filter((s) => s.startsWith("{")).map((s) => s.slice(1, -1));
    if (names.length > 0 && !check) {
      throw new Error(`route ${r.name}: unknown check ${r.check}`);
    }
    if (r.error && !cfg.errors[r.error]) {
      throw new Error(`route ${r.name}: no ${r.error} error`);
    }
    const brace = r.pattern.indexOf("/{");
    return {
      name: r.name,
      segs: shape,
      names,
      file: r.file,
      error: r.error,
      checkName: r.check,
      limited: !!r.rate_limited,
      scope: brace < 0 ? r.pattern : r.pattern.slice(0, brace),
      check: (params) => check(cfg, params),
    };
  });
}

// rateLimited reports whether path is in the scope of a rate-limited route.
function rateLimited(cfg, path) {
  return cfg.compiled.some((r) => r.limited && under(path, r.scope));
}

// validDate reports whether d.m.y is a real Gregorian date within the contract's years.
function validDate(cfg, d, m, y) {
  if (y < cfg.first_year || y > cfg.last_year || m < 1 || m > 12 || d < 1) {
    return false;
  }
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

// fileResponse answers 200 (or 304) with a file of the tree under §4's headers instead of
// the asset's own; a missing file of a valid route is a 500.
async function fileResponse(request, env, cfg, file) {
  const asset = await env.ASSETS.fetch(new URL("/" + file, request.url));
  if (asset.status !== 200) {
    console.error(`asset ${file}: status ${asset.status}`);
    return errorResponse(cfg, "internal_error", request.method);
  }
  const body = await asset.arrayBuffer();
  return bodyResponse(request, cfg, body, await etagOf(body));
}

// recordResponse answers with the matrix record of a valid date: line {day} of its packed
// month file, byte for byte the per-date file, under the same strong ETag. A month file
// that is missing, or lacks the day's line, is a 500 like a missing file. Month files are
// not kept between requests: measured, keeping them costs more CPU (the collector) than the
// fetch and scan they save, unless clients ask for the same months (docs/worker.md).
async function recordResponse(request, env, cfg, [d, m, y]) {
  const file = cfg.matrix_months.replace("{year}", y).replace("{month}", m);
  const asset = await env.ASSETS.fetch(new URL("/" + file, request.url));
  if (asset.status !== 200) {
    console.error(`asset ${file}: status ${asset.status}`);
    return errorResponse(cfg, "internal_error", request.method);
  }
  const bytes = new Uint8Array(await asset.arrayBuffer());
  let start = 0;
  for (let line = 1; line < d && start >= 0; line++) {
    const nl = bytes.indexOf(10, start);
    start = nl < 0 ? -1 : nl + 1;
  }
  const end = start < 0 ? -1 : bytes.indexOf(10, start);
  if (end <= start) {
    console.error(`asset ${file}: no record on line ${d}`);
    return errorResponse(cfg, "internal_error", request.method);
  }
  const body = bytes.subarray(start, end + 1);
  return bodyResponse(request, cfg, body, await etagOf(body));
}

// etagOf returns the strong ETag of a body: its sha256 in hex, quoted.
async function etagOf(body) {
  return '"' + hex(await crypto.subtle.digest("SHA-256", body)) + '"';
}

// bodyResponse answers 200, or 304 when If-None-Match holds the body's ETag.
function bodyResponse(request, cfg, body, etag) {
  const inm = request.headers.get("If-None-Match");
  // If-None-Match uses the weak comparison; "*" matches any file.
  if (inm && inm.split(",").some((t) => (t = t.trim()) === "*" || t.replace(/^W\//, "") === etag)) {
    // No representation metadata on a 304 (RFC 9110 §15.4.5), as the Go server answers.
    const headers = cfg.headersOf(304, { ETag: etag });
    delete headers["Content-Type"];
    return new Response(null, { status: 304, headers });
  }
  return reply(request.method, 200, body, cfg.headersOf(200, { ETag: etag }));
}

// errorResponse answers with a prebuilt error body of the tree, byte for byte.
function errorResponse(cfg, key, method, extra) {
  const e = cfg.errors[key];
  return reply(method, e.status, e.bytes, cfg.headersOf(e.status, extra));
}

// reply answers with body, or for HEAD with its length and no body.
function reply(method, status, body, headers) {
  if (method === "HEAD") {
    headers["Content-Length"] = String(body.byteLength);
    return new Response(null, { status, headers });
  }
  return new Response(body, { status, headers });
}

// overLimit counts a request against the Rate Limiting binding and reports whether the
// client is over the limit. The key is CF-Connecting-IP, set by Cloudflare on every request
// (wrangler dev sets it only when absent), IPv6 grouped by prefix.
async function overLimit(request, env, cfg) {
  let key = (request.headers.get("CF-Connecting-IP") || "").trim();
  if (key.includes(":")) {
    key = ipv6Key(key, cfg.limit.ipv6_prefix);
  }
  try {
    const { success } = await env.RATE_LIMITER.limit({ key });
    return !success;
  } catch (err) {
    // Spam protection must not take the API down: admit the request when the limiter fails.
    console.error(`rate limiter: ${err}`);
    return false;
  }
}

// ipv6Key keys an IPv6 client by its first bits ("2001:db8:1:2::/64"); an address with an
// embedded IPv4 (::ffff:192.0.2.1) is keyed by that IPv4 address.
function ipv6Key(ip, bits) {
  ip = ip.split("%")[0].toLowerCase(); // drop a zone
  if (ip.includes(".")) {
    return ip.slice(ip.lastIndexOf(":") + 1);
  }
  const [head, tail] = ip.split("::");
  let groups = head ? head.split(":") : [];
  if (tail !== undefined) {
    const rest = tail ? tail.split(":") : [];
    groups = groups.concat(Array(Math.max(0, 8 - groups.length - rest.length)).fill("0"), rest);
  }
  const keep = [];
  for (let i = 0; i * 16 < bits && i < 8; i++) {
    const left = bits - i * 16;
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    keep.push((parseInt(groups[i], 16) & mask).toString(16));
  }
  return keep.join(":") + "::/" + bits;
}

// rawPath returns the path of the request URL, still percent-encoded. workerd has already
// resolved dot segments and backslashes in request.url (see docs/worker.md).
function rawPath(url) {
  const path = url.replace(/^[a-z]+:\/\/[^/?#]*/i, "").split(/[?#]/)[0];
  return path || "/";
}

// hex encodes a digest as lowercase hex.
function hex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
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
  const cfg = await res.json();
  if (!cfg.errors || !cfg.errors.internal_error || !cfg.headers || !cfg.rate_limit || !cfg.matrix_months) {
    throw new Error("incomplete edge config");
  }
  const enc = new TextEncoder();
  for (const e of Object.values(cfg.errors)) {
    e.bytes = enc.encode(e.body);
  }
  const { common, by_status: byStatus, preflight } = cfg.headers;
  return Object.assign(cfg, {
    validNumbers: new Set(cfg.valid_numbers),
    compiled: compileRoutes(cfg),
    limit: cfg.rate_limit,
    preflight,
    // headersOf returns a fresh header object: the common set, the status's own, extra.
    headersOf: (status, extra) => Object.assign({}, common, byStatus[status], extra),
  });
}
