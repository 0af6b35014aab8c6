/**
 * §S Selecting by shape (issue 40): a 1,000-vertex polygon against the same selection written as `LocationId in (…)`
 * and as a bounding box, on /Observations: the exact count (target ≤ 100 ms at 10M rows), a 1,000-row page (target
 * ≤ 1.2× the Id list), and the features API's page with numberMatched (the bbox form's only home on observations).
 * The polygon's locations are computed here by a crossing-number test of the bench's own, and every answer is checked
 * against that count. Long filters go in bodies (POST …/$query, POST items): a 1,000-vertex outline does not fit a URL.
 */
import { repeat, summary, type Context } from './context.js';
import { num } from './duck.js';
import { verdict } from './table.js';

const VERTICES = 1000;
/** At most this many locations, so the Id list stays within one `in (…)` (FILTER_LIMITS.maxInValues). */
const MAX_LOCATIONS = 800;

export type SpatialContext = Pick<Context, 'settings' | 'base' | 'duck' | 'figures' | 'details' | 'log'> & { readonly headers: Record<string, string> };

export async function spatialSection(ctx: SpatialContext): Promise<void> {
  const { settings, base, duck, figures, log, headers } = ctx;
  log('§S selecting by shape');
  const points = (await duck.all('SELECT "Id" AS id, "Longitude" AS x, "Latitude" AS y FROM locations', [])).map((r) => ({ id: num(r['id']!), x: num(r['x']!), y: num(r['y']!) }));
  const { ring, ids } = shapeAround(points);
  const inside = new Set(ids);
  const expected = num((await duck.all(`SELECT count(*) AS n FROM observations WHERE "LocationId" IN (${ids.join(',') || 'NULL'})`, []))[0]!['n']!);
  const wkt = `POLYGON((${ring.map(([x, y]) => `${x} ${y}`).join(',')}))`;
  const xs = ring.map((p) => p[0]);
  const ys = ring.map((p) => p[1]);
  const box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  const forms = {
    polygon: `$filter=${encodeURIComponent(`geo.intersects(Location,geography'SRID=4326;${wkt}')`)}`,
    'LocationId in (…)': `$filter=${encodeURIComponent(`LocationId in (${ids.join(',')})`)}`,
  };
  const query = async (body: string) => {
    const t = performance.now();
    const res = await fetch(`${base}/v1/odata/v4/Observations/$query`, { method: 'POST', body, headers: { ...headers, 'Content-Type': 'text/plain' } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`§S POST $query: HTTP ${res.status} ${text.slice(0, 300)}`);
    return { ms: performance.now() - t, text };
  };
  const counts: Record<string, number> = {};
  const pages: Record<string, number> = {};
  for (const [name, filter] of Object.entries(forms)) {
    const runs = await repeat(settings.runs, 1, () => query(`${filter}&$count=true`));
    for (const r of runs) if ((JSON.parse(r.text) as { value: number }).value !== expected) throw new Error(`§S ${name}: count ${r.text}, expected ${expected}`);
    counts[name] = summary(runs.map((r) => r.ms)).median;
    figures.push({ section: 'S', name: `exact count, ${name} (${ids.length} locations)`, unit: 'ms', value: summary(runs.map((r) => r.ms)), target: '≤ 100 ms', verdict: verdict(counts[name]! <= 100), note: `${expected} observations` });
    const pageRuns = await repeat(settings.runs, 1, () => query(`${filter}&$top=1000`));
    pages[name] = summary(pageRuns.map((r) => r.ms)).median;
    figures.push({ section: 'S', name: `1,000-row page, ${name}`, unit: 'ms', value: summary(pageRuns.map((r) => r.ms)), verdict: 'info' });
  }
  const ratio = pages['polygon']! / pages['LocationId in (…)']!;
  figures.push({ section: 'S', name: `1,000-row page, polygon ÷ LocationId in (…)`, unit: '×', value: summary([ratio]), target: '≤ 1.2×', ratio, ratioOf: `Id list ${pages['LocationId in (…)']!.toFixed(0)} ms`, verdict: verdict(ratio <= 1.2) });

  // The features API: page and numberMatched in one request, the polygon POSTed as CQL2-JSON and the bbox as bbox=.
  const items = async (init: { body?: string; bbox?: string }) => {
    const t = performance.now();
    const url = `${base}/v1/features/collections/observations/items?limit=1000${init.bbox ? `&bbox=${init.bbox}` : ''}`;
    const res = await fetch(url, init.body ? { method: 'POST', body: init.body, headers: { ...headers, 'Content-Type': 'application/query-cql-json' } } : { headers });
    const json = (await res.json()) as { numberMatched?: number };
    if (res.status !== 200) throw new Error(`§S items: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return { ms: performance.now() - t, matched: json.numberMatched };
  };
  const cql2 = JSON.stringify({ op: 's_intersects', args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [ring] }] });
  const polygonItems = await repeat(settings.runs, 1, () => items({ body: cql2 }));
  if (polygonItems.some((r) => r.matched !== expected)) throw new Error(`§S items polygon: numberMatched ${polygonItems[0]!.matched}, expected ${expected}`);
  const boxItems = await repeat(settings.runs, 1, () => items({ bbox: box.join(',') }));
  figures.push({ section: 'S', name: 'items page + numberMatched, polygon (POST CQL2-JSON)', unit: 'ms', value: summary(polygonItems.map((r) => r.ms)), verdict: 'info', note: `${expected} matched` });
  figures.push({ section: 'S', name: "items page + numberMatched, the polygon's bbox", unit: 'ms', value: summary(boxItems.map((r) => r.ms)), verdict: 'info', note: `${boxItems[0]!.matched} matched (the box holds more than the polygon)` });
  ctx.details['spatial'] = { vertices: VERTICES, locations: ids.length, observations: expected, outside: points.length - inside.size, counts, pages };
}

/**
 * A 1,000-vertex star around the median location, grown until it holds about MAX_LOCATIONS locations (fewer on a
 * small hub), and the Ids inside it by a crossing-number test of its own.
 */
function shapeAround(points: readonly { id: number; x: number; y: number }[]): { ring: [number, number][]; ids: number[] } {
  const sorted = (k: 'x' | 'y') => points.map((p) => p[k]).sort((a, b) => a - b);
  const [xs, ys] = [sorted('x'), sorted('y')];
  const [cx, cy] = [xs[xs.length >> 1]!, ys[ys.length >> 1]!];
  const want = Math.min(MAX_LOCATIONS, Math.max(1, Math.floor(points.length / 4)));
  let r = (xs[xs.length - 1]! - xs[0]! + ys[ys.length - 1]! - ys[0]!) / 100;
  let best: { ring: [number, number][]; ids: number[] } | undefined;
  for (; r < 360; r *= 1.1) {
    const ring = Array.from({ length: VERTICES }, (_, i) => {
      const a = (2 * Math.PI * i) / VERTICES;
      const k = r * (0.6 + 0.4 * Math.sin(7 * a) ** 2);
      return [Math.round((cx + k * Math.cos(a)) * 1e6) / 1e6 + 3e-7, Math.round((cy + k * Math.sin(a)) * 1e6) / 1e6 + 3e-7] as [number, number];
    });
    ring.push(ring[0]!);
    const ids = points.filter((p) => crossing(ring, p.x, p.y)).map((p) => p.id);
    if (ids.length > MAX_LOCATIONS) break;
    best = { ring, ids };
    if (ids.length >= want) break;
  }
  if (!best || best.ids.length === 0) throw new Error('§S: no polygon around the median location holds a location');
  return best;
}

function crossing(ring: readonly [number, number][], x: number, y: number): boolean {
  let inside = false;
  for (let i = 1; i < ring.length; i++) {
    const [[ax, ay], [bx, by]] = [ring[i - 1]!, ring[i]!];
    if (ay > y !== by > y && x < ((bx - ax) * (y - ay)) / (by - ay) + ax) inside = !inside;
  }
  return inside;
}
