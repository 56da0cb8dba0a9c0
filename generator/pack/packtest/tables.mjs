// Reads every table of an unpacked dataset with DuckDB, as Parquet and as CSV, and prints
// one JSON object: for each file, its row count, its column names and types as DuckDB sees
// them, and the rows asked for (argv[3]: a JSON object mapping a table to the keys of its
// first key column to fetch). Used by go test ./generator/pack/ (TestDuckDB).
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const want = JSON.parse(process.argv[3] ?? '{}');
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const out = {};
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
for (const [sub, read] of [['parquet', 'read_parquet'], ['csv', 'read_csv']]) {
  for (const f of readdirSync(join(dir, sub)).sort()) {
    const path = join(dir, sub, f);
    const src = read === 'read_csv' ? `read_csv(${quote(path)}, header = true, auto_detect = true)` : `read_parquet(${quote(path)})`;
    const count = await conn.runAndReadAll(`SELECT count(*) AS n FROM ${src}`);
    const desc = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`);
    const table = f.replace(/\.(csv|parquet)$/, '');
    const entry = { rows: Number(count.getRowObjects()[0].n), columns: desc.getRowObjects().map((r) => [r.column_name, r.column_type]), sample: {} };
    const keys = want[table] ?? [];
    if (keys.length > 0) {
      const first = entry.columns[0][0];
      const res = await conn.runAndReadAll(`SELECT * FROM ${src} WHERE CAST("${first}" AS VARCHAR) IN (${keys.map(quote).join(', ')})`);
      for (const row of res.getRowObjectsJson()) {
        entry.sample[String(row[first])] = Object.values(row).map((v) => (v === null ? null : String(v)));
      }
    }
    out[`${sub}/${f}`] = entry;
  }
}
console.log(JSON.stringify(out));
