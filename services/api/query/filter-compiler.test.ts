import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterCompiler } from './filter-compiler.js';
import { Params, type CompiledQuery } from './sql.js';
import { PAGE_SOURCES } from './source.js';
import { page } from '../testing/plans.js';

/** The filter of a Records query, compiled against the observations as a page would. */
function compileFilter(qs: string): CompiledQuery {
  const params = new Params();
  const sql = new FilterCompiler(PAGE_SOURCES.observations, params).compile(page('Records', qs).where!);
  return { sql, params: params.values };
}

describe('FilterCompiler: hostile input never reaches the SQL text', () => {
  const hostile = fc.oneof(
    fc.string(),
    fc.constantFrom(`'; DROP TABLE observations; --`, `" OR 1=1 --`, '/* */', '$1', '\\', '\u0000', 'ü🙂', `' || (SELECT 1) || '`),
  );
  it('string literals are parameters', () => {
    fc.assert(
      fc.property(hostile, fc.constantFrom('CharacteristicName', 'DOI', 'ActivityMediaName', 'RegionId'), (text, field) => {
        const literal = `'${text.replaceAll("'", "''")}'`;
        let compiled;
        try {
          compiled = compileFilter(`$filter=${field} eq ${literal} or startswith(${field}, ${literal})`);
        } catch (err) {
          // Control characters etc. may be refused by the parser; they must never get further.
          expect(err).toBeInstanceOf(Error);
          return;
        }
        expect(compiled.params).toContain(text);
        // The SQL text is the same whatever the value. (Regression: asserting that the value does not occur in it
        // failed at random for values such as 'RE ', which WHERE contains.)
        expect(compiled.sql).toBe(compileFilter(`$filter=${field} eq 'x' or startswith(${field}, 'x')`).sql);
      }),
      { numRuns: 2000 },
    );
  });
});
