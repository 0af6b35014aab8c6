/**
 * §F OGC API – Features: a 10,000-feature page of `observations` against the same OData page (issue #31: at most
 * 1.2×). Two comparisons at two positions (first page, the middle by `cursor`): against /Observations with the
 * properties both have (the same rows and fields), and against /Records with every field (the features' default).
 * The requests alternate, so both see the same machine.
 */
import { observationFields, recordFields } from '../../schemas/index.js';
import { repeat, summary, type Context } from './context.js';
import { url } from './extract.js';
import { num } from './duck.js';
import { verdict } from './table.js';

const LIMIT = 10_000;
const TARGET = 1.2;

/** The Observations fields that Records also has: the properties of a features page equal to an /Observations page. */
const SHARED = observationFields.filter((f) => recordFields.some((r) => r.name === f.name)).map((f) => f.name);

/** What §F needs of the run: not the filters, so it also runs alone on a sample too small for them. */
export type FeaturesContext = Pick<Context, 'settings' | 'client' | 'base' | 'duck' | 'figures' | 'details' | 'log'>;

export async function featuresSection(ctx: FeaturesContext): Promise<void> {
  const { settings, client, base, duck, figures, log } = ctx;
  log('§F OGC API – Features pages');
  const middle = num((await duck.all('SELECT quantile_disc("Id", 0.5) AS m FROM observations', []))[0]!['m']!) - 1;
  const samples: Record<string, unknown>[] = [];
  for (const [position, after] of [['first', undefined], ['50%', middle]] as const) {
    for (const against of ['Observations', 'Records'] as const) {
      const properties = against === 'Observations' ? SHARED.join(',') : undefined;
      const features = featuresUrl(base, { limit: String(LIMIT), properties, cursor: after === undefined ? undefined : String(after) });
      const odata = url(base, against, { $top: String(LIMIT), $select: properties, $skiptoken: after === undefined ? undefined : `Id:${after}` });
      const runs = await repeat(settings.runs, 1, async () => ({
        features: await client.http.get(features, { marker: Buffer.from('{"type":"Feature"') }),
        odata: await client.http.get(odata, { marker: Buffer.from('{"Id":') }),
      }));
      for (const r of runs) {
        if (r.features.status !== 200 || r.odata.status !== 200) throw new Error(`${features} / ${odata}: HTTP ${r.features.status} / ${r.odata.status}`);
        if (r.features.markers !== r.odata.markers) throw new Error(`${features}: ${r.features.markers} features, ${r.odata.markers} OData rows`);
      }
      const ms = summary(runs.map((r) => r.features.ms));
      const ref = summary(runs.map((r) => r.odata.ms));
      const ratio = ms.median / ref.median;
      figures.push({
        section: 'F',
        name: `observations items, ${LIMIT} features, ${position} page, vs /${against}${properties ? ' (same fields)' : ''}`,
        unit: 'ms',
        value: ms,
        target: `≤ ${TARGET}× /${against}`,
        ratio,
        ratioOf: `/${against} ${ref.median.toFixed(0)} ms`,
        verdict: verdict(ratio <= TARGET),
        note: `${runs[0]!.features.markers} features, ${(runs[0]!.features.bytes / 1e6).toFixed(1)} MB against ${(runs[0]!.odata.bytes / 1e6).toFixed(1)} MB`,
      });
      samples.push({ position, against, featuresMs: runs.map((r) => r.features.ms), odataMs: runs.map((r) => r.odata.ms) });
    }
  }
  ctx.details['features'] = samples;
}

function featuresUrl(base: string, params: Record<string, string | undefined>): string {
  const qs = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
    .join('&');
  return `${base}/v1/features/collections/observations/items?${qs}`;
}
