// Runs query.sql over a generated benchmark sweep with DuckDB and prints the
// result as JSON lines on stdout, the wall time on stderr.
//
//   node scripts/duckdb/stats.mjs parquet|csv SWEEP_DIR
//
// DuckDB is a benchmark peer only (installed by scripts/bench-vs-duckdb.sh
// with npm into scripts/duckdb/node_modules), never a dependency of benchnote.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [format, root] = process.argv.slice(2);
if (!['parquet', 'csv'].includes(format) || !root) {
  console.error('usage: node stats.mjs parquet|csv SWEEP_DIR');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const source = format === 'parquet'
  ? `read_parquet(${quote(join(root, 'c*/run-*/requests.parquet'))}, filename = true)`
  : `read_csv(${quote(join(root, 'c*/run-*/requests.csv'))}, filename = true, header = true)`;
const sql = readFileSync(join(here, 'query.sql'), 'utf8').replace('__SOURCE__', source);

const t0 = process.hrtime.bigint();
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await instance.connect();
const reader = await conn.runAndReadAll(sql);
const rows = reader.getRowObjectsJson();
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
for (const row of rows) console.log(JSON.stringify(row));
console.error(`duckdb ${format}: ${rows.length} levels in ${seconds.toFixed(3)} s`);
