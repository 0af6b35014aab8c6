/**
 * The query-parsing stage: raw query string → `Query`, knowing nothing of the
 * catalogue (the planner checks names and types).
 *
 * Option names are matched case-insensitively (`$Top` = `$top`), as OData 4.01
 * §5 allows; so `$top=1&$TOP=2` is a duplicate. Parameters not starting with
 * `$` are custom options: ignored, but kept for the link builder.
 */
import { FORMAT_NAMES, FORMATS, formatNamed, type Format } from '../formats.js';
import type { Property, Query, SkipToken } from './ast.js';
import { ODataError } from './odata-error.js';
import { parseApply } from './parse-apply.js';
import { parseFilter } from './parse-filter.js';
import { decodeQueryString } from './query-string.js';

// OData defines $top as a non-negative integer; $top=0 (with $count=true) is how generic clients ask for a count alone.
export const TOP_RANGE = { min: 0, max: 10_000 } as const;

type QueryPart = Partial<Omit<Query, 'otherParams'>>;
type OptionParser = (value: string) => QueryPart;

const SUPPORTED_OPTIONS = {
  $select: (value) => ({ select: parseSelect(value) }),
  $filter: (value) => ({ filter: parseFilter(value, '$filter') }),
  $top: (value) => ({ top: parseTop(value) }),
  $skiptoken: (value) => ({ skiptoken: parseSkipToken(value) }),
  $count: (value) => ({ count: parseCount(value) }),
  $format: (value) => ({ format: parseFormat(value) }),
  $apply: (value) => ({ apply: parseApply(value) }),
} as const satisfies Record<string, OptionParser>;

type SupportedOption = keyof typeof SUPPORTED_OPTIONS;

/** "json, csv or arrow (or application/json, text/csv, application/vnd.apache.arrow.stream)" */
const FORMAT_CHOICES = `${orList(FORMAT_NAMES)} (or ${FORMAT_NAMES.map((f) => FORMATS[f].mediaType).join(', ')})`;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const INT64_MAX = 9_223_372_036_854_775_807n;
const PAGING = 'results are always in Id order, and paging is by $skiptoken, which each page gives in @odata.nextLink';

/**
 * Parse the raw query string of a request (the part after the first `?`, not yet decoded).
 * Throws `ODataError`; see `ODATA_ERROR_CODES` for every code.
 *
 * @example
 * parseQuery("$select=Id,ResultValue&$filter=CharacteristicName+eq+'pH'&$top=100")
 * // → { select: [{ kind: 'property', name: 'Id', offset: 0 }, …], filter: { kind: 'compare', … }, top: 100, count: false, otherParams: [] }
 */
export function parseQuery(rawQueryString: string): Query {
  let query: Omit<Query, 'otherParams'> = { count: false };
  const otherParams: (readonly [string, string])[] = [];
  const seen = new Set<string>();
  for (const { name, value } of decodeQueryString(rawQueryString)) {
    if (!name.startsWith('$')) {
      otherParams.push([name, value]);
      continue;
    }
    const option = name.toLowerCase();
    if (seen.has(option)) {
      throw new ODataError('duplicate_option', `${name} is given more than once: give each query option once.`, { parameter: option });
    }
    seen.add(option);
    if (!isSupported(option)) throw unsupportedOption(name);
    query = { ...query, ...SUPPORTED_OPTIONS[option](value) };
  }
  return { ...query, otherParams };
}

function isSupported(option: string): option is SupportedOption {
  return Object.hasOwn(SUPPORTED_OPTIONS, option);
}

function unsupportedOption(name: string): ODataError {
  const option = name.toLowerCase();
  const supported = Object.keys(SUPPORTED_OPTIONS).join(', ');
  const known = ['$orderby', '$skip', '$expand', '$search', '$compute', '$index', '$levels'].includes(option);
  const what = known ? `${name} is not supported` : `Unknown query option ${name}`;
  return new ODataError('unsupported_option', `${what}: ${PAGING}. Supported options are ${supported}.`, { parameter: name });
}

/**
 * `$select=A, B,C` → properties with offsets; `*` means every field (returned as `undefined`).
 *
 * @example
 * parseSelect('Id, ResultValue') // → [{ kind: 'property', name: 'Id', offset: 0 }, { kind: 'property', name: 'ResultValue', offset: 4 }]
 */
export function parseSelect(value: string): readonly Property[] | undefined {
  const fail = (message: string, offset: number): ODataError => new ODataError('invalid_select', `${message}: give field names separated by commas, e.g. $select=Id,CharacteristicName,ResultValue.`, { parameter: '$select', offset });
  if (value.trim() === '*') return undefined;
  const properties: Property[] = [];
  const seen = new Set<string>();
  let offset = 0;
  for (const part of value.split(',')) {
    const leading = part.length - part.trimStart().length;
    const name = part.trim();
    const at = offset + leading;
    if (name === '') throw fail(`Missing field name at position ${at} of $select`, at);
    if (name === '*') throw fail(`'*' at position ${at} of $select cannot be combined with field names`, at);
    if (!IDENTIFIER.test(name)) throw fail(`'${name.slice(0, 40)}' at position ${at} of $select is not a field name`, at);
    // Selecting a field twice means selecting it once (OData 4.01 §5.1.3).
    if (!seen.has(name)) properties.push({ kind: 'property', name, offset: at });
    seen.add(name);
    offset += part.length + 1;
  }
  return properties;
}

function parseTop(value: string): number {
  const top = /^[0-9]{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(top >= TOP_RANGE.min && top <= TOP_RANGE.max)) {
    throw new ODataError('invalid_top', `$top must be a whole number from ${TOP_RANGE.min} to ${TOP_RANGE.max}, found '${value.slice(0, 40)}': for more rows, follow @odata.nextLink.`, { parameter: '$top', offset: 0 });
  }
  return top;
}

function parseSkipToken(value: string): SkipToken {
  const token = value.startsWith('Id:') ? value.slice(3) : '';
  if (/^[0-9]{1,19}$/.test(token) && BigInt(token) <= INT64_MAX) return { kind: 'integer', value: BigInt(token) };
  if (UUID.test(token)) return { kind: 'uuid', value: token.toLowerCase() };
  throw new ODataError('invalid_skiptoken', `$skiptoken must be Id:<number> or Id:<uuid>, found '${value.slice(0, 60)}': use the @odata.nextLink of the previous page unchanged.`, { parameter: '$skiptoken', offset: 0 });
}

function parseCount(value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  throw new ODataError('invalid_count', `$count must be true or false, found '${value.slice(0, 40)}'.`, { parameter: '$count', offset: 0 });
}

function parseFormat(value: string): Format {
  // OData 4.01 §5.1.8: format values are case-insensitive. OData clients often send media-type
  // parameters (application/json;odata.metadata=minimal); they do not change what we write.
  const format = formatNamed((value.split(';')[0] ?? '').trim().toLowerCase());
  if (format === undefined) {
    throw new ODataError('invalid_format', `$format must be ${FORMAT_CHOICES}, found '${value.slice(0, 60)}'.`, { parameter: '$format', offset: 0 });
  }
  return format;
}

function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
