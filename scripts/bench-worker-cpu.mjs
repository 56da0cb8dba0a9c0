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
//         drawn uniformly from the route's parameter types (a pair in either order).
//
// CPU is the process's user+system time around each request (process.cpuUsage, µs
// resolution), garbage collection included. The fake ASSETS holds the tree's API files in
// memory, read before the clock starts: on Cloudflare the asset fetch is not the worker's CPU.
//
// Usage: [ROUTE=matrix] node scripts/bench-worker-cpu.mjs TREE [WARM_REQUESTS] [COLD_RUNS]
import { readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";

const [tree, warmN = "20000", coldN = "200"] = process.argv.slice(2);
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
const env = {
  ASSETS: {
    async fetch(url) {
      const b = files.get(new URL(url).pathname);
      return b ? new Response(b, { status: 200 }) : new Response("not found", { status: 404 });
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

async function request(worker, url, i) {
  const req = new Request(url, { headers: { "CF-Connecting-IP": `10.0.${(i >> 8) & 255}.${i & 255}` } });
  const res = await worker.fetch(req, env, {});
  const body = await res.arrayBuffer();
  if (res.status !== 200 || body.byteLength < 100) {
    throw new Error(`${url}: status ${res.status}, ${body.byteLength} bytes`);
  }
}

function percentiles(samples) {
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return `p50 ${(at(0.5) / 1000).toFixed(3)} ms, p99 ${(at(0.99) / 1000).toFixed(3)} ms, max ${(samples[samples.length - 1] / 1000).toFixed(3)} ms`;
}

async function cold(runs) {
  await request(await load(), anyDate(), 0); // Node's own first use of Request and Response
  const cpu = [];
  for (let i = 0; i < runs; i++) {
    const t = cpuMicros();
    const worker = await load();
    await request(worker, anyDate(), i);
    cpu.push(cpuMicros() - t);
  }
  return percentiles(cpu);
}

async function warm(n, next) {
  const worker = await load();
  for (let i = 0; i < 500; i++) {
    await request(worker, next(), i); // warm-up: the edge config, JIT
  }
  const cpu = [];
  for (let i = 0; i < n; i++) {
    const t = cpuMicros();
    await request(worker, next(), i);
    cpu.push(cpuMicros() - t);
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
} finally {
  await rm(dir, { recursive: true, force: true });
}
