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
        // As edge.json's 500 would be: identity-encoded, never transformed (design §4).
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Encoding": "identity",
          "Cache-Control": "no-store, no-transform",
          "Access-Control-Allow-Origin": "*",
        },
      });
    }
    if (path === MCP_PATH) {
      return mcp(request, env, cfg); // docs/mcp.md
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
  // A birthday (a day of a leap year's calendar, so 29 February too) and a target year: its
  // place is the birthday's in a leap year's calendar, under the target year.
  birthday_year: {
    arity: 3,
    admit: (t, p, i) => p[i + 2] >= t.first_year && p[i + 2] <= t.last_year && validDate(2000, 2000, p[i], p[i + 1], 2000),
    place: (p, i) => ({ year: p[i + 2], month: p[i + 1], inMonth: p[i], inYear: dayOfYear(p[i], p[i + 1], 2000) }),
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
  const { file, line } = packedPlace(route, params);
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

// packedPlace is the packed file of a packed route's value and the line (from 1) that holds
// its record: the place its parameter type gives it, filled into the file pattern, and its
// line by the route's packing unit.
function packedPlace(route, params) {
  const pl = TYPES[route.types[0].type].place(params, 0);
  return {
    file: route.packed.file.replace(/\{(\w+)\}/g, (_, n) => pl[n]),
    line: UNITS[route.packed.unit].line(pl),
  };
}

// readLine returns line n (from 1) of a stream of bytes, with its newline; null when the
// stream ends before it or the line is empty. It reads the stream only up to the line's
// end and cancels the rest: a file per year is ~800 KB, and a record in it ~2 KB. An
// asset's body is a byte stream, read with a BYOB reader into buffers the isolate keeps
// (readBuffers): the bytes before the line are scanned in place, never allocated anew, and
// only the record is copied out. Allocating a chunk for every part of a ~115 KB month file
// that a request passes over drove the collector (external memory pressure) and was the
// tail of the chart's CPU (docs/worker.md). A stream that is not a byte stream is read
// with a default reader.
async function readLine(stream, n) {
  if (!stream) {
    return null;
  }
  let reader;
  let buf = null; // the BYOB reads' buffer, the isolate's; null for a default reader
  try {
    reader = stream.getReader({ mode: "byob" });
    buf = readBuffers.pop() || new ArrayBuffer(READ_BUFFER_BYTES);
  } catch {
    reader = stream.getReader();
  }
  const scan = { line: 1, parts: [] }; // the line the next byte read belongs to; line n so far
  try {
    for (;;) {
      let done, value;
      if (buf === null) {
        ({ done, value } = await reader.read());
      } else {
        ({ done, value } = await reader.read(new Uint8Array(buf)));
        buf = value ? value.buffer : null; // the read detached buf; value views the same memory
      }
      if (done) {
        return null;
      }
      const found = scanLine(value, n, scan);
      if (found !== null) {
        return found.byteLength > 1 ? found : null;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
    if (buf !== null && buf.byteLength === READ_BUFFER_BYTES && readBuffers.length < READ_BUFFERS_KEPT) {
      readBuffers.push(buf);
    }
  }
}

// readBuffers are the isolate's buffers for readLine, each READ_BUFFER_BYTES: one a request
// in flight, at most READ_BUFFERS_KEPT kept (1 MiB).
const readBuffers = [];
const READ_BUFFER_BYTES = 64 << 10;
const READ_BUFFERS_KEPT = 16;

// scanLine looks in chunk, whose first byte belongs to line scan.line, for line n: it returns
// the line (a copy, joined with the parts of it earlier chunks held) when it ends in chunk,
// or null after keeping in scan.parts what chunk holds of it and in scan.line the line of
// the byte after chunk.
function scanLine(chunk, n, scan) {
  let i = 0;
  while (scan.line < n) {
    const nl = chunk.indexOf(10, i);
    if (nl < 0) {
      return null;
    }
    scan.line++;
    i = nl + 1;
  }
  const nl = chunk.indexOf(10, i);
  scan.parts.push(chunk.slice(i, nl < 0 ? chunk.length : nl + 1));
  if (nl < 0) {
    return null;
  }
  return scan.parts.length === 1 ? scan.parts[0] : concat(scan.parts);
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
// "[2001:db8::1]:443"). An IPv4 client, also written as an IPv4-mapped (::ffff:0:0/96),
// NAT64 (64:ff9b::/96) or SIIT (::ffff:0:0:0/96) address, is keyed by its IPv4 address; an
// address of the local-use translation prefix 64:ff9b:1::/48, where the IPv4 address sits
// where the operator's prefix length puts it, by the whole address ("/128"); any other IPv6
// client by its first `bits` bits, zone dropped ("2001:db8:1:2::/64", RFC 5952). null: not
// an address.
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
  const mapped = zero(0, 5) && a[5] === 0xffff;
  const siit = zero(0, 4) && a[4] === 0xffff && a[5] === 0;
  const nat64 = a[0] === 0x64 && a[1] === 0xff9b && zero(2, 6);
  if (a.length === 8 && (mapped || siit || nat64)) {
    a = [a[6] >> 8, a[6] & 255, a[7] >> 8, a[7] & 255];
  }
  if (a.length === 8 && a[0] === 0x64 && a[1] === 0xff9b && a[2] === 1) {
    bits = 128;
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

// ---------------------------------------------------------------------------------------
// The MCP endpoint (docs/mcp.md), as edge/server/mcp.go answers it: POST /mcp, JSON-RPC 2.0
// answered as application/json, no sessions and no server-to-client streams; the stateless
// revision 2026-07-28 and, for clients in use today, the 2025 revisions statelessly. Each
// tool is a route of edge.json (api/public/mcp.json binds them, loaded on the first MCP
// request of an isolate): a call builds the route's path from its arguments and answers
// what a GET of it answers, the record's bytes or the route's error body, counted against
// the client's rate limit like the request.

const MCP_PATH = "/mcp";
const MCP_FILE = "/api/public/mcp.json";
const MCP_MODERN = "2026-07-28";
const MCP_LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"];
const MCP_SUPPORTED = [MCP_MODERN, ...MCP_LEGACY];
// The version of a request without MCP-Protocol-Version and _meta (before 2025-06-18, curl).
const MCP_NO_HEADER_VERSION = "2025-03-26";
const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

// MCP_ARG_TYPES: how a parameter type takes its tool arguments, how many and how they
// become its parameters (null: not a value of the type's shape). A new type is an entry here.
const MCP_ARG_TYPES = {
  number: { args: 1, decode: (a) => (argInt(a[0]) === null ? null : [argInt(a[0])]) },
  pair: { args: 2, decode: (a) => (argInt(a[0]) === null || argInt(a[1]) === null ? null : [argInt(a[0]), argInt(a[1])]) },
  date: {
    args: 1,
    decode: (a) => {
      const m = typeof a[0] === "string" ? /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(a[0]) : null;
      return m === null ? null : [Number(m[3]), Number(m[2]), Number(m[1])];
    },
  },
  birthday_year: {
    args: 2,
    decode: (a) => {
      const m = typeof a[0] === "string" ? /^([0-9]{2})-([0-9]{2})$/.exec(a[0]) : null;
      return m === null || argInt(a[1]) === null ? null : [Number(m[2]), Number(m[1]), argInt(a[1])];
    },
  },
};

// argInt reads an integer-valued JSON number of at most nine digits; null otherwise.
function argInt(v) {
  return Number.isInteger(v) && v >= 0 && v <= 999999999 ? v : null;
}

let mcpPromise = null;

// mcpConfig loads and prepares mcp.json once per isolate.
function mcpConfig(env, base, cfg) {
  if (mcpPromise === null) {
    mcpPromise = (async () => {
      const res = await env.ASSETS.fetch(new URL(MCP_FILE, base));
      if (res.status !== 200) {
        throw new Error(`status ${res.status}`);
      }
      const m = await res.json();
      if (!(m.max_body_bytes > 0) || !m.headers || !m.headers.response || !m.list) {
        throw new Error("incomplete MCP config");
      }
      const tools = new Map();
      for (const t of m.tools) {
        const route = cfg.compiled.find((r) => r.name === t.route);
        if (!route || t.args.length !== route.types.length || route.types.some((p, i) => MCP_ARG_TYPES[p.type].args !== t.args[i].length)) {
          throw new Error(`tool ${t.name}: route ${t.route} has no such parameters`);
        }
        tools.set(t.name, { route, args: t.args, structured: !!t.structured });
      }
      const meta = JSON.stringify({ "io.modelcontextprotocol/serverInfo": m.server });
      const caps = { tools: {} };
      return {
        m,
        tools,
        meta,
        // tools/list's result as UTF-8, encoded once: ~50 KB, which a string would have
        // flattened and encoded on every call (the collector's work, and the call's tail).
        list: UTF8_ENCODER.encode(JSON.stringify(m.list)),
        discover: JSON.stringify({
          supportedVersions: MCP_SUPPORTED,
          capabilities: caps,
          instructions: m.instructions,
          ttlMs: m.ttl_ms,
          cacheScope: "public",
          resultType: "complete",
          _meta: JSON.parse(meta),
        }),
        initRest: JSON.stringify({ capabilities: caps, serverInfo: m.server, instructions: m.instructions }).slice(1),
        hosts: m.hosts || [],
      };
    })().catch((err) => {
      mcpPromise = null;
      throw err;
    });
  }
  return mcpPromise;
}

// mcp answers a request to the MCP endpoint.
async function mcp(request, env, cfg) {
  let s;
  try {
    s = await mcpConfig(env, request.url, cfg);
  } catch (err) {
    console.error(`load ${MCP_FILE}: ${err}`);
    return errorResponse(cfg, cfg.edge_errors.internal, request.method);
  }
  const h = s.m.headers;
  if (request.method === "OPTIONS") {
    return new Response(null, { status: 204, headers: h.preflight });
  }
  if (request.method !== "POST") {
    const a = rpcError(405, null, -32600, "Method not allowed: send JSON-RPC messages with POST");
    return new Response(request.method === "HEAD" ? null : a.body, { status: 405, headers: Object.assign({}, h.response, h.not_allowed) });
  }
  const a = await mcpPost(request, env, cfg, s);
  if (a.body === null) {
    return new Response(null, { status: a.status, headers: h.accepted });
  }
  const headers = Object.assign({}, h.response);
  if (a.retry > 0) {
    headers["Retry-After"] = String(a.retry);
  }
  return new Response(a.body, { status: a.status, headers });
}

// rpcError is a JSON-RPC error answer; without an id (one that could not be read) it has none.
function rpcError(status, id, code, message, data) {
  const e = { code, message };
  if (data !== undefined) {
    e.data = data;
  }
  const body = id === null ? { jsonrpc: "2.0", error: e } : { jsonrpc: "2.0", id, error: e };
  return { status, body: JSON.stringify(body) };
}

// rpcResult is a JSON-RPC result answer around result, already JSON.
function rpcResult(id, result) {
  return { status: 200, body: '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + result + "}" };
}

// mcpPost answers a POST: the transport's checks (Origin, size, one message), then the
// protocol version, then the method.
async function mcpPost(request, env, cfg, s) {
  const host = request.headers.get("Host") || new URL(request.url).host;
  if (!originAllowed(request.headers.get("Origin"), host, s.hosts)) {
    return rpcError(403, null, -32600, "Forbidden: invalid Origin");
  }
  const max = s.m.max_body_bytes;
  const tooLarge = rpcError(413, null, -32600, `Request body larger than ${max} bytes`);
  if (Number(request.headers.get("Content-Length") || 0) > max) {
    return tooLarge;
  }
  const bytes = await readCapped(request, max);
  if (bytes === null) {
    return tooLarge;
  }
  let msg;
  try {
    msg = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return rpcError(400, null, -32700, "Parse error");
  }
  return mcpMessage(request, env, cfg, s, msg);
}

// readCapped reads a request body of at most max bytes; null when it is longer.
async function readCapped(request, max) {
  if (request.body === null) {
    return new Uint8Array(0);
  }
  const chunks = [];
  let n = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    n += value.byteLength;
    if (n > max) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

// mcpMessage answers one parsed JSON-RPC message.
async function mcpMessage(request, env, cfg, s, msg) {
  if (Array.isArray(msg)) {
    return rpcError(400, null, -32600, "Invalid Request: batches are not supported");
  }
  if (!isObject(msg)) {
    return rpcError(400, null, -32600, "Invalid Request");
  }
  const hasID = Object.prototype.hasOwnProperty.call(msg, "id");
  const id = typeof msg.id === "string" || typeof msg.id === "number" ? msg.id : null;
  const method = msg.method;
  if (msg.jsonrpc !== "2.0" || typeof method !== "string" || (hasID && id === null)) {
    return rpcError(400, id, -32600, "Invalid Request");
  }
  if (!hasID) {
    return { status: 202, body: null }; // a notification: nothing to answer
  }
  const params = msg.params === undefined ? {} : msg.params;
  if (!isObject(params)) {
    return rpcError(400, id, -32602, "Invalid params: want an object");
  }
  const meta = isObject(params._meta) ? params._meta : {};
  const headerVersion = trimOWS(request.headers.get("MCP-Protocol-Version") || "");
  let version = headerVersion;
  const modernMeta = Object.prototype.hasOwnProperty.call(meta, META_VERSION);
  if (modernMeta) {
    const v = meta[META_VERSION];
    if (typeof v !== "string") {
      return rpcError(400, id, -32602, "Invalid params: _meta protocolVersion is not a string");
    }
    if (v !== headerVersion) {
      return rpcError(400, id, -32020, `Header mismatch: MCP-Protocol-Version ${JSON.stringify(headerVersion)}, _meta protocolVersion ${JSON.stringify(v)}`);
    }
    version = v;
  } else if (method === "initialize") {
    const v = MCP_LEGACY.includes(params.protocolVersion) ? params.protocolVersion : MCP_LEGACY[0];
    return rpcResult(id, '{"protocolVersion":' + JSON.stringify(v) + "," + s.initRest);
  } else if (version === "") {
    version = MCP_NO_HEADER_VERSION;
  }
  if (version === MCP_MODERN) {
    const bad = checkModern(request.headers, id, method, modernMeta, meta, params.name);
    if (bad !== null) {
      return bad;
    }
  } else if (!MCP_LEGACY.includes(version)) {
    return rpcError(400, id, -32022, "Unsupported protocol version", { supported: MCP_SUPPORTED, requested: version });
  }
  switch (method) {
    case "server/discover":
      return rpcResult(id, s.discover);
    case "tools/list":
      return rpcResultBytes(id, s.list);
    case "tools/call": {
      if (typeof params.name !== "string") {
        return rpcError(200, id, -32602, "Invalid params: name is not a string");
      }
      const tool = s.tools.get(params.name);
      if (tool === undefined) {
        return rpcError(200, id, -32602, "Unknown tool: " + params.name);
      }
      const args = params.arguments === undefined || params.arguments === null ? {} : params.arguments;
      if (!isObject(args)) {
        return rpcError(200, id, -32602, "Invalid params: arguments is not an object");
      }
      return mcpCall(request, env, cfg, s, id, tool, args);
    }
    case "ping":
      if (version !== MCP_MODERN) {
        return rpcResult(id, "{}");
      }
  }
  // 2026-07-28: an unknown method is a 404.
  return rpcError(version === MCP_MODERN ? 404 : 200, id, -32601, "Method not found: " + method);
}

// checkModern checks what 2026-07-28 requires of every request: the _meta fields and the
// standard headers that mirror the body; null when all is well.
function checkModern(headers, id, method, hasVersion, meta, name) {
  if (!hasVersion || !isObject(meta[META_CAPABILITIES])) {
    return rpcError(400, id, -32602, `Invalid params: _meta must hold ${META_VERSION} and ${META_CAPABILITIES}`);
  }
  const mismatch = (h, body) =>
    rpcError(400, id, -32020, `Header mismatch: ${h} header ${JSON.stringify(headers.get(h) || "")} does not match the body's ${JSON.stringify(body)}`);
  if (mcpHeader(headers, "Mcp-Method") !== method) {
    return mismatch("Mcp-Method", method);
  }
  if (method === "tools/call") {
    const n = typeof name === "string" ? name : "";
    if (headers.get("Mcp-Name") === null || mcpHeader(headers, "Mcp-Name") !== n) {
      return mismatch("Mcp-Name", n);
    }
  }
  return null;
}

// mcpHeader is a standard MCP header's value, OWS trimmed and, in the Base64 sentinel form
// "=?base64?…?=", decoded.
function mcpHeader(headers, name) {
  const v = trimOWS(headers.get(name) || "");
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  if (m !== null) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0)));
    } catch {
      return v;
    }
  }
  return v;
}

// mcpCall answers a tools/call: the tool's route is asked for the path its arguments make,
// after the rate limit counted the call when the route is rate-limited (before the
// arguments are looked at, as a request is counted before its path is validated).
async function mcpCall(request, env, cfg, s, id, tool, args) {
  const route = tool.route;
  if (route.limited) {
    if (!env.RATE_LIMITER) {
      console.error("RATE_LIMITER binding is not configured");
      return toolResult(id, s, true, false, cfg.errors[cfg.edge_errors.internal].body);
    }
    if (await overLimit(request, env, cfg)) {
      const retry = cfg.limit.window_seconds;
      const a = toolResult(id, s, true, false, cfg.errors[cfg.edge_errors.too_many_requests].body, "Retry-After: " + retry);
      a.retry = retry;
      return a;
    }
  }
  const path = toolPath(cfg, tool, args);
  const m = path === null ? { error: route.error || cfg.edge_errors.not_found } : match(cfg, path);
  if (m.error) {
    return toolResult(id, s, true, false, cfg.errors[m.error].body);
  }
  const key = m.route.packed ? null : tool.route.name + "\n" + path;
  const kept = key === null ? undefined : toolResults.get(key);
  if (kept !== undefined) {
    return rpcResultBytes(id, kept);
  }
  const bytes = await recordOf(env, request.url, m.route, m.params);
  if (bytes === null) {
    return toolResult(id, s, true, false, cfg.errors[cfg.edge_errors.internal].body);
  }
  const result = toolResultJSON(s, false, tool.structured, UTF8.decode(bytes));
  if (key === null) {
    return rpcResult(id, result);
  }
  const encoded = UTF8_ENCODER.encode(result);
  if (toolResultsBytes + encoded.length <= TOOL_RESULTS_MAX) {
    toolResults.set(key, encoded);
    toolResultsBytes += encoded.length;
  }
  return rpcResultBytes(id, encoded);
}

const UTF8_ENCODER = new TextEncoder();

// rpcResultBytes is rpcResult around a result already encoded as UTF-8. The answer's body is
// the result's bytes between the envelope's head and its closing brace, sent as a stream of
// the three: a kept result (a meanings tool's, 60–110 KB) is not copied into a new buffer on
// every call, which would give the collector that much to free each time (the tail of
// those tools' CPU); a default stream's chunks are not transferred, so one result serves
// any number of answers at once.
function rpcResultBytes(id, result) {
  const parts = [UTF8_ENCODER.encode('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":'), result, CLOSE_BRACE];
  return { status: 200, body: partsStream(parts) };
}

const CLOSE_BRACE = new Uint8Array([0x7d]); // }

// partsStream is a stream of the byte arrays parts, one chunk each, never modified.
function partsStream(parts) {
  let i = 0;
  return new ReadableStream(
    {
      pull(c) {
        if (i < parts.length) {
          c.enqueue(parts[i++]);
        }
        if (i === parts.length) {
          c.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

// toolResults keeps, per isolate, the result JSON (UTF-8) of the tools whose route is one file a
// value (meanings, lists, a number's record, a pair's): the same few files are asked for
// again and again, and the largest (the chart's meanings) costs milliseconds of CPU to decode
// and quote into a result. The files of a deployed version never change, so nothing expires;
// the space is bounded, and a result past it is built each time. Date routes, one line of a
// month file a date, are not kept.
const toolResults = new Map();
let toolResultsBytes = 0;
const TOOL_RESULTS_MAX = 16 << 20; // bytes: 16 MiB of the isolate's 128 MB at most

const UTF8 = new TextDecoder();

// recordOf returns the bytes a route's GET answers for canonical params, as fileResponse
// and packedResponse read them (without the ETag a tool result has no use for); null, logged,
// when the file or its line is missing.
async function recordOf(env, base, route, params) {
  const { file, line } = route.packed ? packedPlace(route, params) : { file: fill(route.file, route.names, params), line: 0 };
  const asset = await env.ASSETS.fetch(new URL("/" + file, base));
  if (asset.status !== 200) {
    console.error(`asset ${file}: status ${asset.status}`);
    return null;
  }
  if (!route.packed) {
    return new Uint8Array(await asset.arrayBuffer());
  }
  const bytes = await readLine(asset.body, line);
  if (bytes === null) {
    console.error(`asset ${file}: no record on line ${line}`);
  }
  return bytes;
}

// toolPath is the route path a call's arguments make, null when an argument is missing or
// of the wrong shape.
function toolPath(cfg, tool, args) {
  const params = [];
  const types = tool.route.types;
  for (let i = 0; i < types.length; i++) {
    const vals = tool.args[i].map((n) => args[n]);
    const p = vals.includes(undefined) ? null : MCP_ARG_TYPES[types[i].type].decode(vals);
    if (p === null) {
      return null;
    }
    params.push(...p);
  }
  let k = 0;
  return cfg.prefix + tool.route.segs.map((seg) => "/" + (seg.startsWith("{") ? params[k++] : seg)).join("");
}

// toolResult is a tools/call result around a body: one text item holding it and, for a
// structured tool's record, the same record as structuredContent; an error (the route's
// error body, the rate limit's) has isError and more text items.
function toolResult(id, s, isError, structured, body, ...more) {
  return rpcResult(id, toolResultJSON(s, isError, structured, body, ...more));
}

// toolResultJSON is toolResult's result member, as JSON.
function toolResultJSON(s, isError, structured, body, ...more) {
  let r = '{"content":[{"type":"text","text":' + JSON.stringify(body) + "}";
  for (const m of more) {
    r += ',{"type":"text","text":' + JSON.stringify(m) + "}";
  }
  if (isError) {
    r += '],"isError":true';
  } else if (structured) {
    r += '],"structuredContent":' + body.replace(/\n$/, "") + ',"isError":false';
  } else {
    r += '],"isError":false';
  }
  return r + ',"resultType":"complete","_meta":' + s.meta + "}";
}

// originAllowed applies docs/mcp.md's Origin rule, as the Go server's originAllowed does: no
// Origin (not a browser) is allowed; an Origin must be an http(s) origin; a request from a
// page of the same host name is allowed only under a loopback name, an IP address or one of
// hosts (under any other name it is a DNS rebinding); cross-origin requests are the API's
// CORS, open to every site.
function originAllowed(origin, host, hosts) {
  if (origin === null || origin === "") {
    return true;
  }
  const m = /^https?:\/\/([^/?#@ ]+)$/.exec(origin);
  if (m === null) {
    return false;
  }
  const oh = hostName(m[1]).toLowerCase();
  if (oh !== hostName(host).toLowerCase()) {
    return true;
  }
  if (oh === "localhost" || oh.endsWith(".localhost") || hosts.includes(oh)) {
    return true;
  }
  return parseIP(oh.replace(/^\[(.*)\]$/, "$1")) !== null;
}

// hostName is the host of "host[:port]", an IPv6 address keeping its brackets.
function hostName(hp) {
  if (hp.startsWith("[")) {
    const i = hp.indexOf("]");
    return i < 0 ? hp : hp.slice(0, i + 1);
  }
  const i = hp.lastIndexOf(":");
  return i < 0 ? hp : hp.slice(0, i);
}
