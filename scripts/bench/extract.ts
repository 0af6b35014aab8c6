/** §1 and §3: following `@odata.nextLink` one request at a time, and the clients' partitioned pattern. */
import type { Encoding, HttpClient } from './http-client.js';
import { nextPage } from './http-client.js';

export const ODATA = '/v1/odata/v4';
const JSON_ROW = Buffer.from('{"Id":');
const CSV_LINE = Buffer.from('\r\n');

export interface ExtractResult {
  readonly rows: number;
  /** Decoded bytes, and the bytes on the wire when the pages came compressed. */
  readonly bytes: number;
  readonly wireBytes: number;
  readonly ms: number;
  readonly pages: number;
}

export function url(base: string, resource: string, params: Record<string, string | undefined>): string {
  const qs = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
    .join('&');
  return `${base}${ODATA}/${resource}${qs ? `?${qs}` : ''}`;
}

/**
 * Follows next links from `first` until there are none (or `maxPages`), counting rows in the bodies: JSON rows
 * start with `{"Id":` (Id is the first field), CSV rows end with CRLF (one of which ends the header). Arrow
 * bodies are not decoded: `rows` is NaN and the caller checks the page count instead.
 */
export async function pagedExtract(
  http: HttpClient,
  first: string,
  format: 'json' | 'csv' | 'arrow',
  opts: { maxPages?: number; onPage?: (page: number) => void; encoding?: Encoding } = {},
): Promise<ExtractResult> {
  const started = performance.now();
  let next: string | undefined = first;
  let rows = 0;
  let bytes = 0;
  let wireBytes = 0;
  let pages = 0;
  while (next && pages < (opts.maxPages ?? Infinity)) {
    const res = await http.get(next, { encoding: opts.encoding, ...(format === 'arrow' ? {} : { marker: format === 'json' ? JSON_ROW : CSV_LINE }) });
    if (res.status !== 200) throw new Error(`${next}: HTTP ${res.status} ${res.tail.slice(0, 300)}`);
    rows += format === 'json' ? res.markers : format === 'csv' ? Math.max(0, res.markers - 1) : NaN;
    bytes += res.bytes;
    wireBytes += res.wireBytes;
    pages++;
    opts.onPage?.(pages);
    next = nextPage(res);
  }
  return { rows, bytes, wireBytes, ms: performance.now() - started, pages };
}

/** The clients' partition pattern: list matching locations, then extract `LocationId eq N and (<filter>)` for each. */
export async function partitionedExtract(http: HttpClient, base: string, filter: string): Promise<ExtractResult & { locations: number }> {
  const started = performance.now();
  const ids: number[] = [];
  let next: string | undefined = url(base, 'Locations', { $filter: filter, $select: 'Id', $top: '10000' });
  let bytes = 0;
  let wireBytes = 0;
  let pages = 0;
  while (next) {
    const res = await http.get(next, { whole: true });
    if (res.status !== 200) throw new Error(`${next}: HTTP ${res.status}`);
    const body = JSON.parse(res.body!) as { value: { Id: number }[]; '@odata.nextLink'?: string };
    ids.push(...body.value.map((v) => v.Id));
    bytes += res.bytes;
    wireBytes += res.wireBytes;
    pages++;
    next = body['@odata.nextLink'];
  }
  let rows = 0;
  for (const id of ids) {
    const r = await pagedExtract(http, url(base, 'Records', { $filter: `LocationId eq ${id} and (${filter})`, $top: '10000' }), 'json');
    rows += r.rows;
    bytes += r.bytes;
    wireBytes += r.wireBytes;
    pages += r.pages;
  }
  return { rows, bytes, wireBytes, ms: performance.now() - started, pages, locations: ids.length };
}
