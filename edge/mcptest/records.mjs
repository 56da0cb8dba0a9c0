// records: every record of a generated tree validated against its MCP tool's outputSchema
// with the official TypeScript SDK's own validator (AjvJsonSchemaValidator: Ajv for JSON
// Schema 2020-12, formats asserted), as that SDK's clients check structuredContent. A
// record is read from the file a tool's route answers from: its packed files, one record a
// line, for a packed date route (the same bytes as its per-date files, docs/design.md §10),
// its per-value files otherwise. It prints one line per tool ("TOOL N records") and one per
// invalid record (at most 20), and exits 1 when a record is invalid or a tool has none.
//
// Usage: node records.mjs TREE
import { readFileSync } from "node:fs";
import path from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";

const [tree] = process.argv.slice(2);
if (!tree) {
  console.error("usage: node records.mjs TREE");
  process.exit(2);
}
const read = (p) => readFileSync(path.join(tree, p));
const manifest = JSON.parse(read("manifest.json"));
const mcp = JSON.parse(read("api/public/mcp.json"));

// Every file of the tree: the root manifest's and its shards' (docs/design.md §9).
const files = manifest.files.map(([p]) => p);
for (const [shard] of manifest.shards || []) {
  files.push(...JSON.parse(read(shard)).files.map(([p]) => p));
}

// patternOf turns a file pattern of the route table into a regular expression.
const patternOf = (p) => new RegExp("^" + p.replace(/[.]/g, "\\.").replace(/\{\w+\}/g, "[0-9]+") + "$");

const validators = new AjvJsonSchemaValidator();
const problems = [];
let failed = false;
for (const [i, tool] of mcp.list.tools.entries()) {
  if (!tool.outputSchema) {
    continue;
  }
  const route = manifest.edge.routes.find((r) => r.name === mcp.tools[i].route);
  const validate = validators.getValidator(tool.outputSchema);
  const re = patternOf(route.packed ? route.packed.file : route.file);
  let n = 0;
  for (const f of files.filter((f) => re.test(f))) {
    const lines = read(f).toString("utf8").split("\n");
    if (lines[lines.length - 1] === "") {
      lines.pop();
    }
    for (const [k, line] of lines.entries()) {
      n++;
      const r = validate(JSON.parse(line));
      if (!r.valid) {
        failed = true;
        if (problems.length < 20) {
          problems.push(`${tool.name}: ${f} line ${k + 1}: ${r.errorMessage}`);
        }
      }
    }
  }
  if (n === 0) {
    failed = true;
    problems.push(`${tool.name}: no record found for route ${route.name}`);
  }
  console.log(`${tool.name} ${n} records`);
}
for (const p of problems) {
  console.log(p);
}
process.exit(failed ? 1 : 0);
