/**
 * The query of `…/{resource}/$count` (OData 4.01 Part 2 §4.8, Part 1 §11.2.10): the number of rows after `$filter`
 * (and `$search`, which this API offers nowhere: the page's parser answers it as it does on a collection). The
 * standard leaves `$top`, `$skip`, `$orderby`, `$expand` and `$format` on `/$count` undefined; they shape a page,
 * which a count has none of, so each (and every other `$` option) is a 400 naming it rather than a number that
 * quietly ignored it.
 */
import type { Query } from './ast.js';
import { ODataError } from './odata-error.js';
import { parseQuery } from './parse-query.js';
import { decodeQueryString } from './query-string.js';

/** The options that change what `/$count` counts. */
const COUNT_OPTIONS: readonly string[] = ['$filter', '$search'];

/**
 * @example
 * parseCountQuery("$filter=CharacteristicName eq 'pH'") // → { filter: …, count: true, otherParams: [] }
 * parseCountQuery('$top=5') // throws unsupported_option: $top is not allowed on /$count …
 */
export function parseCountQuery(rawQueryString: string): Query {
  for (const { name } of decodeQueryString(rawQueryString)) {
    if (!name.startsWith('$') || COUNT_OPTIONS.includes(name.toLowerCase())) continue;
    throw new ODataError(
      'unsupported_option',
      `${name} is not allowed on /$count, which answers the number of rows $filter matches as text/plain: leave ${name} out (for the rows themselves, GET the collection without /$count).`,
      { parameter: name },
    );
  }
  return { ...parseQuery(rawQueryString), count: true };
}
