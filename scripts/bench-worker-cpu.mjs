// bench-worker-cpu: the worker's CPU per request of a date route (the matrix's, or the one
// ROUTE names: ROUTE=square measures /api/public/square/{d}/{m}/{y}), measured by running its fetch
// handler in Node with the real api/public/edge.json and packed month files of a tree, the
// ASSETS binding answering from the files on disk and the rate limiter always admitting.
//
//   cold: a fresh module instance (a new isolate's globals: no edge config loaded), its
//         first matrix request, module evaluation included;
//   warm: one instance, many requests, dates drawn uniformly from the whole range and
//         from one month;
//   per route: one instance, many requests to each route of edge.json's table, values
//         drawn uniformly from the route's parameter types (a pair in either order);
//   MCP: one instance, many POSTs to /mcp as a 2026-07-28 client sends them: tools/list,
//         and tools/call of every tool of api/public/mcp.json with values drawn the same way.
//
// CPU is the process's user+system time around each request (process.cpuUsage, µs
// resolution), garbage collection included. The fake ASSETS holds the tree's API files in
// memory, read before the clock starts: on Cloudflare the asset fetch is not the worker's CPU.
//
// Usage: [ROUTE=matrix] [WARMUP=5000] node scripts/bench-worker-cpu.mjs TREE [WARM_REQUESTS] [COLD_RUNS]
import { readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";

const [tree, warmN = "20000", coldN = "200"] = process.argv.slice(2);
// WARMUP requests precede each warm measurement, unmeasured. process.cpuUsage counts every
// thread of the process, V8's optimizing compiler among them: in a fresh process the first
// few thousand requests carry its background compilations (the max of a measurement after
// 500 warm-up requests was 20–30 ms, after 5,000 4–6 ms) and the heap's growth to its steady
// size, which an isolate serving the API has long behind it.
const WARMUP = Number(process.env.WARMUP || 5000);
const route = process.env.ROUTE || "matrix";
if (!tree) {
  console.error("usage: bench-worker-cpu.mjs TREE [WARM_REQUESTS] [COLD_RUNS]");
  process.exit(2);
}
const src = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "edge", "worker", "src", "index.js");
const source = await readFile(src, "utf8");
const dir = await mkdtemp(path.join(tmpdir(), "bench-worker-cpu-"));

// files: URL path → bytes, for everything the worker may read of the tree but the
// per-date files of the packed routes, which it must never ask for.
const files = new Map();
const manifest = JSON.parse(await readFile(path.join(tree, "manifest.json"), "utf8"));
const perDate = manifest.edge.routes
  .filter((r) => r.packed)
  .map((r) => new RegExp("^" + r.file.replace(/[.]/g, "\\.").replace(/\{\w+\}/g, "[0-9]+") + "$"));
// The root's files and those of its shards (docs/design.md §9).
const listed = [...manifest.files];
for (const [shard] of manifest.shards || []) {
  listed.push(...JSON.parse(await readFile(path.join(tree, shard), "utf8")).files);
}
for (const [p] of listed) {
  if (p.startsWith("api/public/") && !perDate.some((re) => re.test(p))) {
    files.set("/" + p, await readFile(path.join(tree, p)));
  }
}
// assetBody is an asset's body as the runtime gives it: a byte stream whose bytes are copied,
// as they are read, into the reader's buffer (a BYOB read) or into chunks of 64 KiB it
// allocates (a default read), from bytes held outside the worker. (new Response(bytes)
// would copy the whole file into the isolate first, on the worker's clock, which the
// runtime does not do.)
function assetBody(bytes) {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: 64 << 10,
    start(c) {
      if (bytes.length === 0) {
        c.close();
      }
    },
    pull(c) {
      const view = c.byobRequest.view;
      const n = Math.min(view.byteLength, bytes.length - at);
      view.set(bytes.subarray(at, at + n));
      at += n;
      c.byobRequest.respond(n);
      if (at === bytes.length) {
        c.close();
      }
    },
  });
}

const env = {
  ASSETS: {
    async fetch(url) {
      const b = files.get(new URL(url).pathname);
      return b ? new Response(assetBody(b), { status: 200 }) : new Response("not found", { status: 404 });
    },
  },
  RATE_LIMITER: { async limit() { return { success: true }; } },
};

let instance = 0;
// load evaluates a fresh copy of the worker: a module of its own, with its own globals.
async function load() {
  const file = path.join(dir, `worker-${instance++}.mjs`);
  await writeFile(file, source);
  return (await import(pathToFileURL(file).href)).default;
}

function cpuMicros() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

const first = new Date(Date.UTC(1900, 0, 1)).getTime();
const last = new Date(Date.UTC(2100, 11, 31)).getTime();
let seed = 12345;
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
function dateURL(t) {
  const d = new Date(t);
  return `https://api.example.org/api/public/${route}/${d.getUTCDate()}/${d.getUTCMonth() + 1}/${d.getUTCFullYear()}`;
}
const anyDate = () => dateURL(first + Math.floor(random() * ((last - first) / 864e5 + 1)) * 864e5);
const oneMonth = () => dateURL(Date.UTC(2000, 4, 1 + Math.floor(random() * 31)));

// request sends a GET of url, or the MCP request {body, headers} (a POST to /mcp), and
// returns the worker's Response. The request is built before the timer starts; the clock
// stops when the worker has answered, and the answer is read and checked (answer, check)
// after: sending a body that already exists is the runtime's work, not the worker's.
function request(worker, url, i) {
  const client = { "CF-Connecting-IP": `10.0.${(i >> 8) & 255}.${i & 255}` };
  const req =
    typeof url === "string"
      ? new Request(url, { headers: client })
      : new Request("https://api.example.org/mcp", { method: "POST", body: url.body, headers: Object.assign(client, url.headers) });
  return () => worker.fetch(req, env, {});
}

// answer reads a Response's body as the runtime sends one, copying its chunks (the arrays the
// worker answered with) into a buffer the harness keeps, so that reading allocates nothing a
// request whose collection would land on the next timed request; it returns the status, the
// length and whether the body holds an MCP error result.
let sink = new ArrayBuffer(1 << 20);
async function answer(url, res) {
  let n = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      if (n + value.byteLength > sink.byteLength) {
        const grown = new ArrayBuffer(2 * (n + value.byteLength));
        new Uint8Array(grown).set(new Uint8Array(sink, 0, n));
        sink = grown;
      }
      new Uint8Array(sink, n).set(value);
      n += value.byteLength;
    }
  }
  const isError = typeof url !== "string" && Buffer.from(sink, 0, n).indexOf('"isError":true') >= 0;
  return { url, status: res.status, bytes: n, isError };
}

// check throws when an answer is not a record: a status other than 200, a body too short to
// be one, or an MCP tool result with isError.
function check(a) {
  if (a.status !== 200 || a.bytes < 100 || a.isError) {
    throw new Error(`${typeof a.url === "string" ? a.url : a.url.body}: status ${a.status}, ${a.bytes} bytes`);
  }
}

// mcpRequest is a 2026-07-28 request of the MCP endpoint, as the SDK clients send it.
function mcpRequest(method, params = {}) {
  params._meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  };
  const headers = { "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method };
  if (params.name) {
    headers["Mcp-Name"] = params.name;
  }
  return { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), headers };
}

// toolCall is a tools/call of a tool with arguments drawn from its route's parameter types.
function toolCall(tool, route) {
  const url = routeURL(route).split("/").slice(-(route.params || []).reduce((n, t) => n + (t.type === "pair" ? 2 : t.type === "date" || t.type === "birthday_year" ? 3 : 1), 0));
  const args = {};
  let k = 0;
  (route.params || []).forEach((t, i) => {
    if (t.type === "date") {
      const [d, m, y] = url.slice(k, k + 3).map(Number);
      args[tool.args[i][0]] = `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
      k += 3;
    } else if (t.type === "birthday_year") {
      const [d, m, y] = url.slice(k, k + 3).map(Number);
      args[tool.args[i][0]] = `${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
      args[tool.args[i][1]] = y;
      k += 3;
    } else {
      tool.args[i].forEach((name) => (args[name] = Number(url[k++])));
    }
  });
  return mcpRequest("tools/call", { name: tool.name, arguments: args });
}

function percentiles(samples) {
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return `p50 ${(at(0.5) / 1000).toFixed(3)} ms, p99 ${(at(0.99) / 1000).toFixed(3)} ms, max ${(samples[samples.length - 1] / 1000).toFixed(3)} ms`;
}

async function cold(runs) {
  {
    const url = anyDate();
    check(await answer(url, await request(await load(), url, 0)())); // Node's own first use of Request and Response
  }
  const cpu = [];
  for (let i = 0; i < runs; i++) {
    const url = anyDate();
    const t = cpuMicros();
    const worker = await load();
    const res = await request(worker, url, i)();
    cpu.push(cpuMicros() - t);
    check(await answer(url, res));
  }
  return percentiles(cpu);
}

async function warm(n, next) {
  const worker = await load();
  for (let i = 0; i < WARMUP; i++) {
    const url = next();
    check(await answer(url, await request(worker, url, i)())); // warm-up: the edge config, JIT
  }
  const cpu = [];
  for (let i = 0; i < n; i++) {
    const url = next();
    const send = request(worker, url, i);
    const t = cpuMicros();
    const res = await send();
    cpu.push(cpuMicros() - t);
    check(await answer(url, res));
  }
  return percentiles(cpu);
}

// routeURL returns a URL of the route with values drawn from its parameter types.
function routeURL(route) {
  const pick = (ns) => ns[Math.floor(random() * ns.length)];
  const vals = [];
  for (const t of route.params || []) {
    if (t.type === "date") {
      const from = Date.UTC(t.first_year, 0, 1), to = Date.UTC(t.last_year, 11, 31);
      const d = new Date(from + Math.floor(random() * ((to - from) / 864e5 + 1)) * 864e5);
      vals.push(d.getUTCDate(), d.getUTCMonth() + 1, d.getUTCFullYear());
    } else if (t.type === "birthday_year") {
      // A day of the leap year 2000's calendar (29 February in every year) and any target year.
      const b = new Date(Date.UTC(2000, 0, 1) + Math.floor(random() * 366) * 864e5);
      vals.push(b.getUTCDate(), b.getUTCMonth() + 1, t.first_year + Math.floor(random() * (t.last_year - t.first_year + 1)));
    } else if (t.type === "pair") {
      vals.push(pick(t.numbers), pick(t.numbers));
    } else {
      vals.push(pick(t.numbers));
    }
  }
  let i = 0;
  return "https://api.example.org" + route.pattern.replace(/\{\w+\}/g, () => vals[i++]);
}

try {
  console.log(`worker CPU per ${route} request (Node ${process.version}, tree ${tree}, ${files.size} API files in memory)`);
  console.log(`  cold, first request of a fresh instance (${coldN} runs): ${await cold(Number(coldN))}   (goal <= 5 ms)`);
  console.log(`  warm, any date 1900-2100 (${warmN} requests):          ${await warm(Number(warmN), anyDate)}   (goal p99 <= 1 ms)`);
  console.log(`  warm, dates of one month (${warmN} requests):           ${await warm(Number(warmN), oneMonth)}`);
  console.log(`worker CPU per request of each route, warm (${warmN} requests each; goal p99 <= 1 ms)`);
  for (const route of manifest.edge.routes) {
    console.log(`  ${route.name.padEnd(16)} ${await warm(Number(warmN), () => routeURL(route))}`);
  }
  // The MCP endpoint (docs/mcp.md): tools/list, and tools/call of every tool, warm.
  const mcp = JSON.parse(await readFile(path.join(tree, "api", "public", "mcp.json"), "utf8"));
  console.log(`worker CPU per MCP request, warm (${warmN} requests each; goal p99 <= 1 ms)`);
  console.log(`  ${"tools/list".padEnd(26)} ${await warm(Number(warmN), () => mcpRequest("tools/list"))}`);
  for (const tool of mcp.tools) {
    const route = manifest.edge.routes.find((r) => r.name === tool.route);
    console.log(`  ${("tools/call " + tool.name).padEnd(26)} ${await warm(Number(warmN), () => toolCall(tool, route))}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
