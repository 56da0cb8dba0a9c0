// client: the official TypeScript SDK client (@modelcontextprotocol/client) against an MCP
// endpoint, for edge/mcptest's Go test. It connects as a 2026-07-28 client (version
// negotiation pinned to it) or as a 2025-11-25 one (the initialize handshake), lists the
// tools and makes every call of CALLS (a JSON file of {tool, args, file, structured}),
// comparing each answer with the tree: the text is the file's bytes, structuredContent the
// same record (the SDK validates it against the tool's outputSchema), an invalid call a
// tool error. It prints one line per problem and "ok N calls" when there is none.
//
// Usage: node client.mjs URL VERSION TREE CALLS
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, version, tree, callsFile] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));
const options = version === "2026-07-28" ? { versionNegotiation: { mode: { pin: version } } } : {};
const client = new Client({ name: "numerology-ts-test", version: "1.0.0" }, options);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const problems = [];
const negotiated = client.getNegotiatedProtocolVersion ? client.getNegotiatedProtocolVersion() : undefined;
if (negotiated !== undefined && negotiated !== version) {
  problems.push(`negotiated ${negotiated}, want ${version}`);
}
const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const c of calls) {
  if (!names.includes(c.Tool)) {
    problems.push(`tools/list lacks ${c.Tool}`);
    continue;
  }
  let res;
  try {
    res = await client.callTool({ name: c.Tool, arguments: c.Args });
  } catch (err) {
    problems.push(`${c.Tool} ${JSON.stringify(c.Args)}: ${err}`);
    continue;
  }
  const text = res.content && res.content[0] && res.content[0].text;
  if (c.File === "") {
    if (!res.isError || typeof text !== "string" || !text.includes('"error"')) {
      problems.push(`${c.Tool} ${JSON.stringify(c.Args)}: want a tool error, got ${JSON.stringify(res).slice(0, 200)}`);
    }
    continue;
  }
  const want = readFileSync(path.join(tree, c.File), "utf8");
  if (res.isError || text !== want) {
    problems.push(`${c.Tool} ${JSON.stringify(c.Args)}: the text is not ${c.File} byte for byte`);
  }
  const structured = res.structuredContent;
  if (c.Structured ? JSON.stringify(structured) !== JSON.stringify(JSON.parse(want)) : structured !== undefined) {
    problems.push(`${c.Tool} ${JSON.stringify(c.Args)}: structuredContent is not the record of ${c.File}`);
  }
}
await client.close();
for (const p of problems) {
  console.log(p);
}
if (problems.length === 0) {
  console.log(`ok ${calls.length} calls`);
}
process.exit(problems.length === 0 ? 0 : 1);
