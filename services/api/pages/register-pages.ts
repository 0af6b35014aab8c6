/**
 * Landing pages and catalogues for search engines and harvesters (issue 41): a page per dataset
 * (`/datasets/<DOI>`) and per location (`/locations/<Id>`), each with its JSON-LD; the DCAT catalogue
 * (`/catalogue`, by Accept, or `/catalogue.jsonld` and `/catalogue.ttl`); every location as NDJSON-LD
 * (`/catalogue/locations.ndjson`); `sitemap.xml` and `robots.txt`. All read the publication through the lease
 * (validated by its ETag) from what exec/landing.ts keeps per snapshot, plus a query by key. They sit outside /v1,
 * so crawlers without a key read them, as they read the docs page.
 */
import type { Context } from 'hono';
import { ApiError } from '../errors.js';
import { locationWindows, readCatalogue, readDatasetLocations, readLocation, readLocationSlice, readLocationSummaries, type Catalogue } from '../exec/landing.js';
import type { HandlerDeps } from '../http/handler-deps.js';
import type { Mount } from '../http/mount.js';
import { PATHS } from '../http/paths.js';
import { linesStream } from '../stream/lines-stream.js';
import { baseTemplate, PLACEHOLDER_BASE, spliceable, templateStream, type BaseTemplate } from './base-template.js';
import { CATALOGUE_MEDIA, catalogueJsonLd, catalogueTurtle } from './dcat.js';
import { datasetPage, PAGE_LOCATIONS } from './dataset-page.js';
import { locationPage } from './location-page.js';
import { PAGE_CSP } from './page-layout.js';
import { datasetPagePath } from './page-links.js';
import { datasetJsonLd, locationJsonLd } from './schema-org.js';
import { locationShare, robotsTxt, sitemapIndex, sitemapParts, SITEMAP_URLS, urlSet } from './sitemap.js';
import { negotiate, qualityOf, type AcceptOffer } from '../accept-ranges.js';

export interface PagesDeps extends Pick<HandlerDeps, 'links'> {
  /** URLs per sitemap file; sitemaps.org's 50,000 unless a test asks for fewer. */
  readonly sitemapUrls?: number;
  /** Locations per query of the NDJSON-LD dump. */
  readonly dumpWindow?: number;
}

const HTML = 'text/html; charset=utf-8';
const MAX_INT64 = 2n ** 63n - 1n;
const XML = 'application/xml; charset=utf-8';
const NDJSON = 'application/x-ndjson; charset=utf-8';
const JSONLD = 'application/ld+json; charset=utf-8';
type CatalogueFormat = keyof typeof CATALOGUE_MEDIA;

/** The catalogue's documents per format and base URL, made once per publication (the catalogue is kept per snapshot). */
const documents = new WeakMap<Catalogue, Map<string, string>>();
/**
 * Documents kept per publication. The base URL comes from the request's Host (or forwarded headers), which a client
 * chooses: kept without a bound, every invented host would keep a copy of the catalogue.
 */
const KEPT_DOCUMENTS = 8;
function once(catalogue: Catalogue, key: string, make: () => string): string {
  let made = documents.get(catalogue);
  if (!made) documents.set(catalogue, (made = new Map()));
  let doc = made.get(key);
  if (doc === undefined) {
    if (made.size >= KEPT_DOCUMENTS) made.delete(made.keys().next().value!);
    made.set(key, (doc = make()));
  }
  return doc;
}

/** The DCAT catalogue per publication and format, for every host: written once with a placeholder base (base-template.ts). */
const templates = new WeakMap<Catalogue, Partial<Record<CatalogueFormat, BaseTemplate>>>();
export function catalogueTemplate(catalogue: Catalogue, format: CatalogueFormat): BaseTemplate {
  let made = templates.get(catalogue);
  if (!made) templates.set(catalogue, (made = {}));
  return (made[format] ??= baseTemplate(format === 'turtle' ? catalogueTurtle(PLACEHOLDER_BASE, catalogue) : JSON.stringify(catalogueJsonLd(PLACEHOLDER_BASE, catalogue))));
}

export function registerPages(mount: Mount, deps: PagesDeps): void {
  const base = (c: Context) => c.get('base');
  const perFile = deps.sitemapUrls ?? SITEMAP_URLS;
  const catalogueOf = (c: Context) => readCatalogue(c.get('lease').snapshot);

  mount('datasetPage', async (c) => {
    const doi = c.req.param('doi') ?? '';
    const catalogue = await catalogueOf(c);
    const dataset = catalogue.byDoi.get(doi);
    if (!dataset) {
      // DOIs are case-insensitive (the DOI Handbook): another spelling of one we have is sent to its page.
      const same = catalogue.datasets.find((d) => d.doi.toLowerCase() === doi.toLowerCase());
      if (same) return c.redirect(datasetPagePath(same.doi), 308);
      throw new ApiError('not_found', `No dataset with DOI '${doi.slice(0, 200)}' in this publication. The path is /datasets/ followed by the DOI, slash kept (/datasets/10.25976/abcd-ef12); ${PATHS.catalogue} and ${PATHS.downloads} list every dataset.`);
    }
    if (wantsJsonLd(c.req.header('accept'))) return c.body(JSON.stringify(datasetJsonLd(base(c), dataset)), 200, { 'Content-Type': JSONLD });
    const locations = await readDatasetLocations(c.get('lease').snapshot, dataset.doi, PAGE_LOCATIONS, c.get('lease').signal);
    return c.body(datasetPage(base(c), dataset, locations), 200, { 'Content-Type': HTML, 'Content-Security-Policy': PAGE_CSP });
  });

  mount('locationPage', async (c) => {
    const raw = c.req.param('id') ?? '';
    const missing = () => new ApiError('not_found', `No monitoring location with Id ${raw.slice(0, 40)} in this publication. The path is /locations/ followed by the location's Id (a whole number, the Id of ${PATHS.odata}/Locations); ${PATHS.sitemap} lists every location's page.`);
    // Past int64 no location can have the Id; bound as it was, 9999999999999999999 was DuckDB's cast error, a 500.
    if (!/^[1-9][0-9]{0,18}$/.test(raw) || BigInt(raw) > MAX_INT64) throw missing();
    const { snapshot, signal } = c.get('lease');
    const [location, catalogue] = await Promise.all([readLocation(snapshot, BigInt(raw), signal), catalogueOf(c)]);
    if (!location) throw missing();
    const dataset = catalogue.byDoi.get(location.doi);
    if (wantsJsonLd(c.req.header('accept'))) return c.body(JSON.stringify(locationJsonLd(base(c), location, dataset)), 200, { 'Content-Type': JSONLD });
    const summaries = await readLocationSummaries(snapshot, location.id, signal);
    return c.body(locationPage(base(c), location, dataset, summaries), 200, { 'Content-Type': HTML, 'Content-Security-Policy': PAGE_CSP });
  });

  const catalogue = (format: CatalogueFormat | undefined) => async (c: Context) => {
    const chosen = format ?? catalogueFormat(c.req.header('accept'));
    if (!chosen) throw new ApiError('not_acceptable', `The catalogue is served as ${CATALOGUE_MEDIA.jsonld} or ${CATALOGUE_MEDIA.turtle}: ask for one in Accept, or GET ${PATHS.catalogueJsonLd} or ${PATHS.catalogueTurtle}.`);
    const b = base(c);
    const data = await catalogueOf(c);
    const type = { 'Content-Type': `${CATALOGUE_MEDIA[chosen]}; charset=utf-8` };
    // An operator's PUBLIC_BASE_URL with characters a document escapes is written for itself, once (KEPT_DOCUMENTS).
    if (!spliceable(b)) return c.body(once(data, `${chosen} ${b}`, () => (chosen === 'turtle' ? catalogueTurtle(b, data) : JSON.stringify(catalogueJsonLd(b, data)))), 200, type);
    return c.body(templateStream(catalogueTemplate(data, chosen), b), 200, type);
  };
  mount('catalogue', catalogue(undefined));
  mount('catalogueJsonLd', catalogue('jsonld'));
  mount('catalogueTurtle', catalogue('turtle'));

  mount('locationsDump', async (c) => {
    const { snapshot, signal, hold } = c.get('lease');
    const [b, data] = [base(c), await catalogueOf(c)];
    async function* lines(): AsyncGenerator<string> {
      for await (const window of locationWindows(snapshot, deps.dumpWindow ?? 5000, signal)) {
        yield window.map((loc) => `${JSON.stringify(locationJsonLd(b, loc, data.byDoi.get(loc.doi)))}\n`).join('');
      }
    }
    return c.body(await linesStream(hold(lines())), 200, { 'Content-Type': NDJSON });
  });

  mount('sitemap', async (c) => {
    const data = await catalogueOf(c);
    const parts = sitemapParts(data, perFile);
    if (parts > 1) return c.body(once(data, `sitemap ${base(c)}`, () => sitemapIndex(base(c), parts)), 200, { 'Content-Type': XML });
    return c.body(await sitemapPart(c, data, 0), 200, { 'Content-Type': XML });
  });
  mount('sitemapPart', async (c) => {
    const data = await catalogueOf(c);
    const part = Number(/^sitemap-([0-9]+)\.xml$/.exec(c.req.param('file') ?? '')?.[1]);
    const parts = sitemapParts(data, perFile);
    if (!(part >= 1 && part <= parts) || parts <= 1) throw new ApiError('not_found', `No ${c.req.path}: ${PATHS.sitemap} lists the sitemap files there are${parts > 1 ? ` (sitemap-1.xml to sitemap-${parts}.xml)` : ' (one, itself)'}.`);
    return c.body(await sitemapPart(c, data, (part - 1) * perFile), 200, { 'Content-Type': XML });
  });
  const sitemapPart = async (c: Context, data: Catalogue, first: number) => {
    const { offset, limit } = locationShare(data, first, perFile);
    const locations = limit > 0 ? await readLocationSlice(c.get('lease').snapshot, offset, limit, c.get('lease').signal) : [];
    return urlSet(base(c), data, first, perFile, locations);
  };

  mount('robots', (c) => c.body(robotsTxt(base(c)), 200, { 'Content-Type': 'text/plain; charset=utf-8' }));
}

/** Whether Accept prefers a page's JSON-LD alone to its HTML: `application/ld+json` ranked above `text/html` (or without it). */
export function wantsJsonLd(accept: string | undefined): boolean {
  const jsonld = qualityOf(accept, [CATALOGUE_MEDIA.jsonld]);
  return jsonld > 0 && jsonld > qualityOf(accept, ['text/html']);
}

/** The catalogue's format an Accept header asks for (by q, then order); undefined when it names neither (406). */
export function catalogueFormat(accept: string | undefined): CatalogueFormat | undefined {
  return negotiate(accept, CATALOGUE_OFFER);
}

const CATALOGUE_OFFER: AcceptOffer<CatalogueFormat> = {
  byType: new Map<string, CatalogueFormat>([[CATALOGUE_MEDIA.jsonld, 'jsonld'], ['application/json', 'jsonld'], [CATALOGUE_MEDIA.turtle, 'turtle']]),
  any: 'jsonld',
  text: 'turtle',
};
