/**
 * The evidence for docs/performance.md's main diagnosis: phase 2 of a 10,000-row page with the route's SQL (a
 * `||` chain) against the same operands in one `concat(…)`, checking the rows are byte-identical.
 *   node --import tsx scripts/bench/diagnose-concat.ts <duckdb file> [first Id]
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { getResource } from '../../schemas/index.js';
import { parseQuery } from '../../services/api/odata/index.js';
import { compilePageRows } from '../../services/api/query/compile.js';
import { planQuery } from '../../services/api/query/plan.js';
import { openDuck } from './duck.js';
import { summarise } from './stats.js';

/** Splits at top-level ` || ` (outside parentheses and quotes). */
function topLevel(expr: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    else if (!quoted && depth === 0 && expr.startsWith(' || ', i)) {
      parts.push(expr.slice(start, i));
      start = i + 4;
      i += 3;
    }
  }
  parts.push(expr.slice(start));
  return parts;
}

const [path, firstArg = '1'] = process.argv.slice(2);
if (!path) {
  console.error('usage: diagnose-concat.ts <duckdb file> [first Id]');
  process.exit(2);
}
const duck = await openDuck(path);
const first = BigInt(firstArg);
for (const [resource, format] of [['Records', 'json'], ['Records', 'csv'], ['Observations', 'json']] as const) {
  const plan = planQuery(parseQuery('$top=10000'), getResource(resource)!);
  if (plan.kind !== 'page') throw new Error('not a page');
  const chain = compilePageRows(plan, { first, last: first + 9999n }, format, { ordered: false });
  const m = /^SELECT t\."Id" AS id, (.*) AS row FROM (.*)$/s.exec(chain.sql);
  if (!m) throw new Error(`unexpected phase 2 SQL: ${chain.sql.slice(0, 120)}`);
  const parts = topLevel(m[1]!);
  if (parts.length < 2) {
    console.log(`${resource} ${format}: not a || chain (${m[1]!.slice(0, 60)}…): nothing to compare`);
    continue;
  }
  const concat = `SELECT t."Id" AS id, concat(${parts.join(', ')}) AS row FROM ${m[2]}`;
  const params = chain.params as DuckDBValue[];
  const [a, b] = [await duck.all(chain.sql, params), await duck.all(concat, params)];
  const identical = a.length === b.length && a.every((r, i) => r['row'] === b[i]!['row']);
  const time = async (sql: string) => {
    const ms: number[] = [];
    for (let i = 0; i < 6; i++) ms.push((await duck.drain(sql, params)).ms);
    return summarise(ms.slice(1)).median.toFixed(0);
  };
  console.log(`${resource} ${format}: ${a.length} rows, ${parts.length} operands; || chain ${await time(chain.sql)} ms, concat() ${await time(concat)} ms; identical: ${identical}`);
}
duck.close();
