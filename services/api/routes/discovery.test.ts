/**
 * Discovery over HTTP against the real fixture database: the service document, `$metadata`, OpenAPI (and real
 * responses checked against its schemas), the docs page, the cite-as link as datastreamjs reads it, and an
 * independent OData client (Apache Olingo's odatajs) discovering the entity sets and querying one on a socket.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Hono } from 'hono';
import odatajs from 'ts-odatajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../../schemas/index.js';
import { createApp } from '../app.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { openDatabase, type Database } from '../db/database.js';

/** datastreamjs's transport (@datastream/fetch 0.0.x, parseLinkFromHeader): a lazy match from the first `<`. */
const DATASTREAMJS_NEXT = /<(.*?)>; rel="next"/;
const BASE = '/v1/odata/v4';

let db: Database;
let app: Hono;
let server: TestServer;
let origin: string;
let doi: string;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
  server = await listen(app);
  origin = server.origin;
  doi = (await json(`${BASE}/Metadata?$select=DOI&$top=1`)).value[0].DOI;
});
afterAll(async () => {
  await server.close();
  await db.close();
});

async function get(path: string, init?: RequestInit) {
  const res = await app.request(path, init);
  return { res, text: await res.text() };
}
async function json(path: string) {
  const { res, text } = await get(path);
  expect(res.status, text).toBe(200);
  return JSON.parse(text);
}
const enc = (s: string) => encodeURIComponent(s);

describe('service document', () => {
  it.each([BASE, `${BASE}/`])('%s lists every entity set with the $metadata context', async (path) => {
    const body = await json(path);
    expect(body).toEqual({
      '@odata.context': `http://localhost${BASE}/$metadata`,
      value: resources.map((r) => ({ name: r.name, kind: 'EntitySet', url: r.name })),
    });
  });

  it("agrees with the collections' @odata.context", async () => {
    const service = await json(`${BASE}/`);
    for (const r of resources) {
      const page = await json(`${BASE}/${r.name}?$top=1`);
      expect(page['@odata.context']).toBe(`${service['@odata.context']}#${r.name}`);
    }
  });
});

describe('$metadata', () => {
  it.each([`${BASE}/$metadata`, `${BASE}/%24metadata`])('%s is CSDL XML, not shadowed by the resource route', async (path) => {
    const { res, text } = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.headers.get('odata-version')).toBe('4.0');
    expect(text).toContain('<EntitySet Name="Observations" EntityType="Tributary.Observation">');
  });

  it('HEAD answers without a body; writes are 405', async () => {
    const head = await get(`${BASE}/$metadata`, { method: 'HEAD' });
    expect([head.res.status, head.text]).toEqual([200, '']);
    expect((await get(`${BASE}/$metadata`, { method: 'POST' })).res.status).toBe(405);
  });
});

describe('OpenAPI', () => {
  it('names the server the client used', async () => {
    const doc = await json('/v1/openapi.json');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://localhost' }]);
  });

  it('describes real responses: pages of every resource, $select, $count, $apply, errors', async () => {
    const doc = await json('/v1/openapi.json');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'https://tributary.test/openapi.json' });
    const check = (schema: string, body: unknown) => {
      const validate = ajv.getSchema(`https://tributary.test/openapi.json#/components/schemas/${schema}`)!;
      expect(validate(body), `${schema}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    };
    const observations = ajv.getSchema('https://tributary.test/openapi.json#/components/schemas/ObservationPage')!;
    expect(observations({ '@odata.context': 'http://x/', value: [{ Id: '1' }] })).toBe(false); // not vacuous
    for (const r of resources) check(`${r.entityType}Page`, await json(`${BASE}/${r.name}?$top=50`));
    check('ObservationPage', await json(`${BASE}/Observations?$select=Id,ResultValue,ActivityStartTime&$top=5`));
    check('Count', await json(`${BASE}/Observations?$count=true&$filter=${enc("CharacteristicName eq 'pH'")}`));
    check('ApplyPage', await json(`${BASE}/Records?$apply=${enc('groupby((CharacteristicName,ActivityStartYear),aggregate($count as Count))')}`));
    check('ServiceDocument', await json(`${BASE}/`));
    check('ObservationPage', await json(`${BASE}/Observations?$top=0&$count=true`));
    for (const path of [`${BASE}/Observations?$top=-1`, `${BASE}/Observations?$select=Nope`, `${BASE}/Nope`, `${BASE}/Observations?$filter=%ZZ`]) {
      const { res, text } = await get(path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      check('Error', JSON.parse(text));
    }
  });
});

describe('docs page', () => {
  it('is static HTML with citation, licence and examples, and runs nothing', async () => {
    const { res, text } = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(text).not.toMatch(/<script/i);
    for (const s of ['Citation and licence', 'https://doi.org/&lt;DOI&gt;', 'rel="cite-as"', '--data-urlencode', 'OData feed', '/v1/openapi.json', `${BASE}/$metadata`, 'Tributary.median', 'ResultDetectionQuantitationLimitMeasure']) {
      expect(text).toContain(s);
    }
  });

  it("every curl example's $filter is one the API answers", async () => {
    const { text } = await get('/');
    const unescape = (s: string) => s.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    const filters = [...text.matchAll(/--data-urlencode "\\\$filter=([^"]+)"/g)].map((m) => unescape(m[1]!));
    expect(filters.some((f) => f.includes('ResultValue gt'))).toBe(true);
    for (const filter of filters) await json(`${BASE}/Observations?$top=1&$filter=${enc(filter)}`);
  });

  it('escapes the base URL it interpolates', async () => {
    const hostile = createApp({ acquire: () => db.acquire(), links: { trustProxy: false, publicBaseUrl: 'https://x.example/"><script>alert(1)</script>' } });
    const text = await (await hostile.request('/')).text();
    expect(text).not.toContain('<script>');
    expect(text).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('does not shadow the API: unknown paths stay 404 JSON', async () => {
    const { res } = await get('/v1/odata/v4/Nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
  });
});

describe('cite-as link', () => {
  it('follows rel="next" on a page that pins one DOI, and datastreamjs reads the next page', async () => {
    const { res, text } = await get(`${BASE}/Observations?$top=5&$filter=${enc(`DOI eq '${doi}' and CharacteristicName ne 'x'`)}`);
    const body = JSON.parse(text);
    const link = res.headers.get('link')!;
    expect(body['@odata.nextLink']).toBeTruthy();
    // The signposting links (describedby, license: api.md "Citing a result") follow next and cite-as.
    expect(link.startsWith(`<${body['@odata.nextLink']}>; rel="next", <https://doi.org/${doi}>; rel="cite-as", <`)).toBe(true);
    expect(DATASTREAMJS_NEXT.exec(link)?.[1]).toBe(body['@odata.nextLink']);
  });

  it('comes first on the last page, and on $count, $apply and CSV answers (alone on $count)', async () => {
    const loc = (await json(`${BASE}/Locations?$select=Id&$top=1&$filter=${enc(`DOI eq '${doi}'`)}`)).value[0].Id;
    const only = `<https://doi.org/${doi}>; rel="cite-as"`;
    const paths = [
      `${BASE}/Observations?$top=10000&$filter=${enc(`DOI eq '${doi}' and LocationId eq ${loc}`)}`,
      `${BASE}/Observations?$count=true&$filter=${enc(`DOI eq '${doi}'`)}`,
      `${BASE}/Observations?$apply=${enc('groupby((CharacteristicName),aggregate($count as Count))')}&$filter=${enc(`DOI eq '${doi}'`)}`,
      `${BASE}/Metadata?$format=csv&$filter=${enc(`DOI eq '${doi}'`)}`,
    ];
    for (const path of paths) {
      const { res } = await get(path);
      expect(res.status).toBe(200);
      const link = res.headers.get('link')!;
      if (path.includes('$count=true')) expect(link, path).toBe(only);
      else expect(link.startsWith(`${only}, <`), path).toBe(true);
      expect(DATASTREAMJS_NEXT.exec(link)).toBeNull();
    }
  });

  it('is absent when the filter does not pin one DOI', async () => {
    const { res } = await get(`${BASE}/Metadata?$filter=${enc(`DOI eq '${doi}' or DOI eq 'other'`)}`);
    expect(res.headers.get('link')).not.toContain('rel="cite-as"');
  });
});

describe('a generic OData client (Apache Olingo odatajs)', () => {
  /** odatajs speaks callbacks; its Node HTTP client does the requests over the socket. */
  const read = (url: string, handler?: unknown) =>
    new Promise<any>((resolve, reject) => // eslint-disable-line @typescript-eslint/no-explicit-any
      odatajs.oData.read({ requestUri: url }, resolve, reject, handler as never));

  it('discovers every entity set from $metadata and queries one', async () => {
    const metadata = await read(`${origin}${BASE}/$metadata`, odatajs.oData.metadataHandler);
    const container = metadata.dataServices.schema[0].entityContainer;
    expect(container.entitySet.map((s: { name: string }) => s.name)).toEqual(['Metadata', 'Locations', 'Observations', 'Records', ...resources.filter((r) => r.kind === 'own-table').map((r) => r.name)]);

    const set = container.entitySet.find((s: { name: string }) => s.name === 'Observations');
    const type = metadata.dataServices.schema[0].entityType.find((t: { name: string }) => `Tributary.${t.name}` === set.entityType);
    const key = type.key.propertyRef[0].name;
    const url = `${origin}${BASE}/${set.name}?$select=${key},CharacteristicName&$top=3&$filter=${enc("CharacteristicName eq 'pH'")}`;
    const page = await read(url);
    expect(page.value).toHaveLength(3);
    for (const row of page.value) expect(Object.keys(row).sort()).toEqual(['CharacteristicName', key].sort());
    expect(page.value.every((row: { CharacteristicName: string }) => row.CharacteristicName === 'pH')).toBe(true);
    expect(page['@odata.nextLink']).toMatch(/\$skiptoken=Id%3A\d+/);
  });
});
