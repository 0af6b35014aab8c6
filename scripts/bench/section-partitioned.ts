/** §3 the clients' partitioned extract of a ~10% subset against the plain paged extract of the same rows. */
import { repeat, summary, type Context } from './context.js';
import { url } from './extract.js';
import { verdict } from './table.js';

export async function partitionedSection(ctx: Context): Promise<void> {
  const { settings, client, base, filters, figures, log } = ctx;
  const filter = filters.subset.odata!;
  const expected = Math.round(filters.share['subset']! * filters.totalRows);
  log(`§3 partitioned vs unpartitioned extract of ${filters.subset.label} (${expected} rows)`);
  const plain = await repeat(settings.extractRuns, settings.quick ? 1 : 0, () => client.extract(url(base, 'Records', { $filter: filter, $top: '10000' }), 'json'));
  const parts = await repeat(settings.extractRuns, 0, () => client.partitioned(base, filter));
  for (const r of [...plain, ...parts]) if (r.rows !== expected) throw new Error(`§3 extract returned ${r.rows} rows, expected ${expected}`);
  const plainMs = summary(plain.map((r) => r.ms));
  const partMs = summary(parts.map((r) => r.ms));
  const ratio = partMs.median / plainMs.median;
  const locations = parts[0]!.locations;
  figures.push(
    { section: '3', name: `unpartitioned extract, ${filters.subset.label}`, unit: 'ms', value: plainMs, verdict: 'info', note: `${expected} rows, ${plain[0]!.pages} requests` },
    {
      section: '3',
      name: `partitioned extract (Locations, then LocationId eq N and …)`,
      unit: 'ms',
      value: partMs,
      target: '≤ 1.5× unpartitioned',
      ratio,
      ratioOf: 'unpartitioned',
      verdict: verdict(ratio <= 1.5),
      note: `${locations} locations, ${parts[0]!.pages} requests, ${(partMs.median / parts[0]!.pages).toFixed(1)} ms/request`,
    },
  );
  ctx.details['partitioned'] = { plain, parts, locations };
}
