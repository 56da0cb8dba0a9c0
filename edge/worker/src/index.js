// Open Numerology Data API on Cloudflare Workers. The out/ tree is served as static assets;
// /api/* runs this worker first (wrangler.json): it routes as docs/design.md §3 says, limits the
// rate-limited routes and sets §4's headers on every answer. The route table (patterns,
// parameter types, files, errors, limits), the header sets and the error bodies all come
// from the tree's api/public/edge.json; this file names no route and no error. A route
// with packed files is answered from them (docs/worker.md): its per-date files are not
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
// (the rate-limited routes, before validation), method, route.
async function handle(request, env, cfg, path) {
  const method = request.method;
  const ee = cfg.edge_errors;
  if (method === "OPTIONS") {
    return new Response(null, { status: 204, headers: cfg.preflight });
  }
  if (rateLimited(cfg, path)) {
    if (!env.RATE_LIMITER) {
      console.error("RATE_LIMITER binding is not configured");
      return errorResponse(cfg, ee.internal, method);
    }
    if (await overLimit(request, env, cfg)) {
      return errorResponse(cfg, ee.too_many_requests, method, {
        "Retry-After": String(cfg.limit.window_seconds),
      });
    }
  }
  if (method !== "GET" && method !== "HEAD") {
    return errorResponse(cfg, ee.method_not_allowed, method);
  }
  const m = match(cfg, path);
  if (m.error) {
    return errorResponse(cfg, m.error, method);
  }
  if (m.route.packed) {
    return packedResponse(request, env, cfg, m.route, m.params);
  }
  return fileResponse(request, env, cfg, fill(m.route.file, m.route.names, m.params));
}

// under reports whether path is prefix itself or under it.
function under(path, prefix) {
  return path === prefix || path.startsWith(prefix + "/");
}

// match maps a raw path under the prefix to {route, params} (canonical parameters) or
// {error}: the first route of edge.json whose segments match and whose parameter types
// admit the parameters; else the error of the route that owns the path; else not found.
function match(cfg, path) {
  if (path.endsWith("/")) {
    path = path.slice(0, -1); // one trailing slash is tolerated
  }
  const segs = path.slice(cfg.prefix.length).split("/").slice(1);
  for (const route of cfg.compiled) {
    const params = matchSegments(route.segs, segs);
    if (params !== null && admit(route, params)) {
      return { route, params };
    }
  }
  const owner = ownerOf(cfg, path);
  return { error: owner && owner.error ? owner.error : cfg.edge_errors.not_found };
}

// ownerOf returns the route that owns a path (one trailing slash removed), null for none:
// of the routes whose scope holds it, the one with the longest scope, then the one whose
// pattern has the number of segments closest to the path's, then the first.
function ownerOf(cfg, path) {
  let best = null;
  let bestDist = 0;
  for (const route of cfg.compiled) {
    if (!under(path, route.scope) || (best !== null && route.scope.length < best.scope.length)) {
      continue;
    }
    const dist = Math.abs(path.slice(route.scope.length).split("/").length - 1 - route.depth);
    if (best === null || route.scope.length > best.scope.length || dist < bestDist) {
      best = route;
      bestDist = dist;
    }
  }
  return best;
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

// TYPES are the parameter types a route's "params" name: how many parameters each takes,
// whether it admits them, making them canonical in place (docs/design.md §3), and, for a
// dated type, the place of a value in its year: its year and month, and its ordinal (from
// 1) within the month and within the year, which say which packed file holds its body and
// on which line (docs/design.md §10).
const TYPES = {
  number: { arity: 1, admit: (t, p, i) => t.set.has(p[i]) },
  pair: {
    arity: 2,
    admit: (t, p, i) => {
      if (!t.set.has(p[i]) || !t.set.has(p[i + 1])) {
        return false;
      }
      if (p[i] > p[i + 1]) {
        [p[i], p[i + 1]] = [p[i + 1], p[i]]; // unordered: the file holds the smaller first
      }
      return true;
    },
  },
  date: {
    arity: 3,
    admit: (t, p, i) => validDate(t.first_year, t.last_year, p[i], p[i + 1], p[i + 2]),
    place: (p, i) => ({ year: p[i + 2], month: p[i + 1], inMonth: p[i], inYear: dayOfYear(p[i], p[i + 1], p[i + 2]) }),
  },
};

// UNITS are the packing units of a route's "packed": the parameters its file pattern holds,
// and the line of a value's body, from the value's place.
const UNITS = {
  month: { holds: ["month", "year"], line: (pl) => pl.inMonth },
  year: { holds: ["year"], line: (pl) => pl.inYear },
};

// admit reports whether a route's types admit params, and makes them canonical.
function admit(route, params) {
  let i = 0;
  for (const t of route.types) {
    if (!TYPES[t.type].admit(t, params, i)) {
      return false;
    }
    i += TYPES[t.type].arity;
  }
  return true;
}

// fill replaces each {name} of a file pattern with its parameter.
function fill(pattern, names, params) {
  return pattern.replace(/\{(\w+)\}/g, (_, n) => params[names.indexOf(n)]);
}

// compileRoutes prepares the route table of edge.json for match. It refuses a table this
// worker cannot follow: an unknown parameter type, types that do not take the pattern's
// parameters, a file naming another parameter, an error without a body.
function compileRoutes(cfg) {
  return cfg.routes.map((r) => {
    const shape = r.pattern.slice(cfg.prefix.length).split("/").slice(1);
    const names = shape.filter((s) => s.startsWith("{")).map((s) => s.slice(1, -1));
    const types = (r.params || []).map((t) => {
      if (!TYPES[t.type]) {
        throw new Error(`route ${r.name}: unknown parameter type ${t.type}`);
      }
      return Object.assign({ set: new Set(t.numbers || []) }, t);
    });
    const arity = types.reduce((n, t) => n + TYPES[t.type].arity, 0);
    if (arity !== names.length) {
      throw new Error(`route ${r.name}: the parameter types take ${arity} parameters, the pattern has ${names.length}`);
    }
    for (const [, n] of r.file.matchAll(/\{(\w+)\}/g)) {
      if (!names.includes(n)) {
        throw new Error(`route ${r.name}: ${r.file} names parameter ${n}, not in the pattern`);
      }
    }
    if (r.packed) {
      const unit = UNITS[r.packed.unit];
      if (!unit) {
        throw new Error(`route ${r.name}: unknown packing unit ${r.packed.unit}`);
      }
      if (types.length !== 1 || !TYPES[types[0].type].place) {
        throw new Error(`route ${r.name}: a packed route has one parameter type, a dated one`);
      }
      const holds = [...new Set(Array.from(r.packed.file.matchAll(/\{(\w+)\}/g), (m) => m[1]))].sort();
      if (holds.join() !== unit.holds.join()) {
        throw new Error(`route ${r.name}: a packed file per ${r.packed.unit} holds {${unit.holds.join("} and {")}}`);
      }
    }
    if (r.error && !cfg.errors[r.error]) {
      throw new Error(`route ${r.name}: no ${r.error} error`);
    }
    const brace = r.pattern.indexOf("/{");
    const scope = brace < 0 ? r.pattern : r.pattern.slice(0, brace);
    return {
      name: r.name,
      segs: shape,
      names,
      types,
      file: r.file,
      packed: r.packed || null,
      error: r.error,
      limited: !!r.rate_limited,
      scope,
      depth: r.pattern.slice(scope.length).split("/").length - 1,
    };
  });
}

// rateLimited reports whether the path's owner is a rate-limited route.
function rateLimited(cfg, path) {
  const owner = ownerOf(cfg, path.endsWith("/") ? path.slice(0, -1) : path);
  return owner !== null && owner.limited;
}

// validDate reports whether d.m.y is a real Gregorian date of the years first–last.
function validDate(first, last, d, m, y) {
  if (y < first || y > last || m < 1 || m > 12 || d < 1) {
    return false;
  }
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

// dayOfYear is the ordinal (from 1) of a date of the Gregorian calendar within its year.
function dayOfYear(d, m, y) {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][m - 1];
  return before + d + (leap && m > 2 ? 1 : 0);
}

// fileResponse answers 200 (or 304) with a file of the tree under §4's headers instead of
// the asset's own; a missing file of a valid route is a 500.
async function fileResponse(request, env, cfg, file) {
  const asset = await env.ASSETS.fetch(new URL("/" + file, request.url));
  if (asset.status !== 200) {
    console.error(`asset ${file}: status ${asset.status}`);
    return errorResponse(cfg, cfg.edge_errors.internal, request.method);
  }
  const body = await asset.arrayBuffer();
  return bodyResponse(request, cfg, body, await etagOf(body));
}

// packedResponse answers with the body of a route's value from its packed file: the
// file of the value's month or year, the line of its place in it, byte for byte the
// per-value file, under the same strong ETag. A packed file that is missing, or lacks the
// line, is a 500 like a missing file. Packed files are not kept between requests:
// measured, keeping them costs more CPU (the collector) than the fetch and scan they save,
// unless clients ask for the same months (docs/worker.md); and each is read only up to the
// line it answers with.
async function packedResponse(request, env, cfg, route, params) {
  const pl = TYPES[route.types[0].type].place(params, 0);
  const file = route.packed.file.replace(/\{(\w+)\}/g, (_, n) => pl[n]);
  const line = UNITS[route.packed.unit].line(pl);
  const asset = await env.ASSETS.fetch(new URL("/" + file, request.url));
  if (asset.status !== 200) {
    console.error(`asset ${file}: status ${asset.status}`);
    return errorResponse(cfg, cfg.edge_errors.internal, request.method);
  }
  const body = await readLine(asset.body, line);
  if (body === null) {
    console.error(`asset ${file}: no record on line ${line}`);
    return errorResponse(cfg, cfg.edge_errors.internal, request.method);
  }
  return bodyResponse(request, cfg, body, await etagOf(body));
}

// readLine returns line n (from 1) of a stream of bytes, with its newline; null when the
// stream ends before it or the line is empty. It reads the stream only up to the line's
// end and cancels the rest: a file per year is ~800 KB, and a record in it ~2 KB.
async function readLine(stream, n) {
  if (!stream) {
    return null;
  }
  const reader = stream.getReader();
  const parts = [];
  let line = 1; // the line the next byte read belongs to
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return null;
      }
      let i = 0;
      while (line < n) {
        const nl = value.indexOf(10, i);
        if (nl < 0) {
          i = value.length;
          break;
        }
        line++;
        i = nl + 1;
      }
      if (line < n) {
        continue;
      }
      const nl = value.indexOf(10, i);
      parts.push(value.subarray(i, nl < 0 ? value.length : nl + 1));
      if (nl >= 0) {
        const body = parts.length === 1 ? parts[0] : concat(parts);
        return body.byteLength > 1 ? body : null;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// concat joins byte arrays.
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

// etagOf returns the strong ETag of a body: its sha256 in hex, quoted.
async function etagOf(body) {
  return '"' + hex(await crypto.subtle.digest("SHA-256", body)) + '"';
}

// bodyResponse answers 200, or 304 when If-None-Match holds the body's ETag.
function bodyResponse(request, cfg, body, etag) {
  const inm = request.headers.get("If-None-Match");
  if (inm !== null && etagMatches(inm, etag)) {
    return new Response(null, { status: 304, headers: Object.assign({}, cfg.headers.not_modified, { ETag: etag }) });
  }
  return reply(request.method, 200, body, cfg.headersOf(200, { ETag: etag }));
}

// etagMatches reports whether an If-None-Match value matches etag (docs/design.md §4), as
// the Go server's etagMatch does: an element of the comma-separated list, OWS (space, tab)
// trimmed, matches when it is "*" or etag, strong or weak (the weak comparison); any other
// element matches nothing.
function etagMatches(value, etag) {
  return value.split(",").some((t) => (t = trimOWS(t)) === "*" || t.replace(/^W\//, "") === etag);
}

// trimOWS trims HTTP's optional whitespace: spaces and tabs, not what String.trim drops.
function trimOWS(s) {
  return s.replace(/^[ \t]+|[ \t]+$/g, "");
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

// UNKNOWN_CLIENT is the key of requests whose CF-Connecting-IP is missing or not an address
// (Cloudflare sets it on every request): they share one budget.
const UNKNOWN_CLIENT = "unknown";

// overLimit counts a request against the Rate Limiting binding and reports whether the
// client is over the limit. The key is the client of CF-Connecting-IP, set by Cloudflare on
// every request (wrangler dev sets it only when absent).
async function overLimit(request, env, cfg) {
  const key = clientKey(request.headers.get("CF-Connecting-IP") || "", cfg.limit.ipv6_prefix) || UNKNOWN_CLIENT;
  try {
    const { success } = await env.RATE_LIMITER.limit({ key });
    return !success;
  } catch (err) {
    // Spam protection must not take the API down: admit the request when the limiter fails.
    console.error(`rate limiter: ${err}`);
    return false;
  }
}

// clientKey returns the rate-limit key of the client an address header names
// (docs/design.md §3), as the Go server's headerClientKey does: its last comma-separated
// element, OWS trimmed, an IP address with or without a port ("192.0.2.1:443",
// "[2001:db8::1]:443"). An IPv4 client, also written as an IPv4-mapped (::ffff:0:0/96) or
// NAT64 (64:ff9b::/96) address, is keyed by its IPv4 address; any other IPv6 client by its
// first `bits` bits, zone dropped ("2001:db8:1:2::/64", RFC 5952). null: not an address.
function clientKey(value, bits) {
  const s = trimOWS(value.slice(value.lastIndexOf(",") + 1));
  let a = parseIP(s);
  const colon = s.lastIndexOf(":");
  const port = s.slice(colon + 1);
  if (a === null && colon > 0 && /^[0-9]+$/.test(port) && Number(port) <= 65535) {
    const host = s.slice(0, colon);
    const bracketed = host.length > 1 && host[0] === "[" && host.endsWith("]");
    a = parseIP(bracketed ? host.slice(1, -1) : host);
    if (a !== null && (a.length === 4) === bracketed) {
      a = null; // brackets around IPv6 only, and always with a port
    }
  }
  if (a === null) {
    return null;
  }
  const zero = (from, to) => a.slice(from, to).every((g) => g === 0);
  if (a.length === 8 && ((zero(0, 5) && a[5] === 0xffff) || (a[0] === 0x64 && a[1] === 0xff9b && zero(2, 6)))) {
    a = [a[6] >> 8, a[6] & 255, a[7] >> 8, a[7] & 255];
  }
  if (a.length === 4) {
    return a.join(".");
  }
  const g = a.map((x, i) => {
    const left = bits - 16 * i;
    return left >= 16 ? x : left <= 0 ? 0 : x & (0xffff << (16 - left)) & 0xffff;
  });
  let at = -1;
  let run = 1; // the longest run of two or more zero groups, the first of equals, is "::"
  for (let i = 0, j; i < 8; i = j + 1) {
    for (j = i; j < 8 && g[j] === 0; j++);
    if (j - i > run) {
      [at, run] = [i, j - i];
    }
  }
  const hex = g.map((x) => x.toString(16));
  return (at < 0 ? hex.join(":") : hex.slice(0, at).join(":") + "::" + hex.slice(at + run).join(":")) + "/" + bits;
}

// parseIP parses an address as Go's netip.ParseAddr does: IPv4 as its 4 bytes; IPv6 (with an
// optional dotted IPv4 tail, and a zone, dropped) as its 8 groups; null otherwise.
function parseIP(s) {
  const first = /[.:%]/.exec(s);
  if (first === null || first[0] === "%") {
    return null;
  }
  if (first[0] === ".") {
    return parseIPv4(s);
  }
  const zone = s.indexOf("%");
  if (zone >= 0) {
    if (zone === s.length - 1) {
      return null; // an empty zone
    }
    s = s.slice(0, zone);
  }
  if (s.includes(".")) {
    const c = s.lastIndexOf(":");
    const v4 = parseIPv4(s.slice(c + 1));
    if (v4 === null) {
      return null;
    }
    s = s.slice(0, c + 1) + ((v4[0] << 8) | v4[1]).toString(16) + ":" + ((v4[2] << 8) | v4[3]).toString(16);
  }
  const halves = s.split("::");
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves[1] ? halves[1].split(":") : [];
  const n = head.length + tail.length;
  if (halves.length > 2 || (halves.length === 2 ? n > 7 : n !== 8) || !head.concat(tail).every((x) => /^[0-9a-f]{1,4}$/i.test(x))) {
    return null;
  }
  return [...head, ...Array(8 - n).fill("0"), ...tail].map((x) => parseInt(x, 16));
}

// parseIPv4 parses a dotted IPv4 address without leading zeros into its 4 bytes, or null.
function parseIPv4(s) {
  const b = s.split(".");
  return b.length === 4 && b.every((x) => /^(0|[1-9][0-9]{0,2})$/.test(x) && Number(x) <= 255) ? b.map(Number) : null;
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
  if (!cfg.errors || !cfg.edge_errors || !cfg.headers || !cfg.headers.not_modified || !cfg.rate_limit) {
    throw new Error("incomplete edge config");
  }
  for (const [role, key] of Object.entries(cfg.edge_errors)) {
    if (!cfg.errors[key]) {
      throw new Error(`edge_errors.${role}: no ${key} error`);
    }
  }
  for (const [key, e] of Object.entries(cfg.errors)) {
    if (!cfg.headers.by_status[e.status]) {
      throw new Error(`error ${key}: status ${e.status} has no header set`);
    }
  }
  const enc = new TextEncoder();
  for (const e of Object.values(cfg.errors)) {
    e.bytes = enc.encode(e.body);
  }
  const { common, by_status: byStatus, preflight } = cfg.headers;
  return Object.assign(cfg, {
    compiled: compileRoutes(cfg),
    limit: cfg.rate_limit,
    preflight,
    // headersOf returns a fresh header object: the common set, the status's own, extra.
    headersOf: (status, extra) => Object.assign({}, common, byStatus[status], extra),
  });
}
