/**
 * The OpenAPI document against the OpenAPI 3.1 JSON Schema (a real validator), and against the catalogue, the
 * error table and the limits it is generated from. discovery.test.ts checks real responses against it.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { filterNames, nullOnWire, resources } from '../../../schemas/index.js';
import { API_ERROR_CODES } from '../errors.js';
import { FORMAT_NAMES, FORMATS } from '../formats.js';
import { TOP_RANGE } from '../odata/index.js';
import { EXPORT_RESOURCES } from '../export-formats.js';
import { DEFAULT_TOP } from '../query/plan.js';
import { buildOpenApi } from './openapi.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const doc = buildOpenApi('https://api.example.org') as Json;
const STATUSES = ['400', '401', '403', '404', '405', '406', '408', '410', '413', '414', '415', '416', '429', '500', '503', '504'];
/** A page's statuses: all but 416, which only a dataset file's Range gets, and 415 and 408, which only a POSTed body gets. */
const QUERY_STATUSES = STATUSES.filter((s) => s !== '416' && s !== '415' && s !== '408');

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the validator rejects a broken document (so the check above is not vacuous)', async () => {
    const broken = structuredClone(doc);
    broken['paths']['/v1/odata/v4/Observations']['get']['responses'] = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has every endpoint', () => {
    expect(Object.keys(doc['paths']).sort()).toEqual(
      ['/', '/healthz', '/readyz', '/v1/openapi.json', '/v1/odata/v4/', '/v1/odata/v4/$metadata', ...resources.map((r) => `/v1/odata/v4/${r.name}`), ...resources.map((r) => `/v1/odata/v4/${r.name}/$query`), ...resources.map((r) => `/v1/odata/v4/${r.name}/$count`), ...EXPORT_RESOURCES.map((r) => `/v1/export/${r}`),
       '/v1/downloads', '/v1/downloads/manifest.json', '/v1/downloads/files/{hash}/{name}', '/v1/publications',
       '/datasets/{doi}', '/locations/{id}', '/catalogue', '/catalogue.jsonld', '/catalogue.ttl', '/catalogue/locations.ndjson', '/sitemap.xml', '/robots.txt', '/mcp', '/llms.txt', '/llms-full.txt', '/v1/search/datasets', ...resources.map((r) => `/v1/citation/${r.name}`)].sort(),
    );
  });

  it('describes the exports: their formats, the count header, and the paging options they refuse left out', () => {
    for (const name of EXPORT_RESOURCES) {
      const op = doc['paths'][`/v1/export/${name}`]['get'];
      expect(op['parameters'].map((p: { name: string }) => p.name)).toEqual(['$select', '$filter', '$format', 'publication']);
      expect(Object.keys(op['responses']['200']['content'])).toEqual(['application/vnd.apache.parquet', 'text/csv', 'application/x-ndjson', 'application/vnd.apache.arrow.stream']);
      expect(op['responses']['200']['headers']).toHaveProperty('X-Total-Count');
      expect(op['responses']).toHaveProperty('406');
    }
  });

  it('describes each /$count: only $filter and the pin, a text/plain number, the query errors', () => {
    for (const r of resources) {
      const op = doc['paths'][`/v1/odata/v4/${r.name}/$count`]['get'];
      expect(op['operationId']).toBe(`count${r.name}`);
      expect(op['parameters'].map((p: Json) => p['name'] ?? p['$ref'])).toEqual(['$filter', '#/components/parameters/publication']);
      expect(Object.keys(op['responses']['200']['content'])).toEqual(['text/plain']);
      expect(Object.keys(op['responses']).filter((s) => s !== '200')).toEqual(QUERY_STATUSES);
    }
  });

  it('describes the citations: the formats they are negotiated in, the 406, the JSON document', () => {
    for (const r of resources) {
      const op = doc['paths'][`/v1/citation/${r.name}`]['get'];
      expect(op['parameters'].map((p: { name: string }) => p.name)).toEqual(['$filter', 'format']);
      expect(Object.keys(op['responses']['200']['content'])).toEqual(['application/json', 'application/vnd.citationstyles.csl+json', 'application/x-bibtex', 'application/x-research-info-systems', 'text/plain', 'text/x-bibliography']);
      expect(op['responses']).toHaveProperty('406');
    }
    expect(doc['components']['schemas']['Citation']['required']).toEqual(['resource', 'filter', 'publication', 'url', 'rows', 'datasets']);
  });

  it('declares the x-api-key security scheme and requires it', () => {
    expect(doc['components']['securitySchemes']['ApiKey']).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc['security']).toEqual([{ ApiKey: [] }]);
  });

  it('documents every error status the API uses, each with the one error body', () => {
    expect([...new Set(Object.values(API_ERROR_CODES).map(String))].sort()).toEqual(STATUSES);
    for (const r of resources) {
      const responses = doc['paths'][`/v1/odata/v4/${r.name}`]['get']['responses'];
      expect(Object.keys(responses).filter((s) => s !== '200')).toEqual(QUERY_STATUSES);
    }
    for (const s of STATUSES) {
      expect(doc['components']['responses'][`Error${s}`]['content']['application/json']['schema']).toEqual({ $ref: '#/components/schemas/Error' });
    }
    const codes = doc['components']['schemas']['Error']['properties']['errors']['items']['properties']['code']['enum'];
    expect(codes).toEqual(Object.keys(API_ERROR_CODES));
    expect(Object.keys(doc['paths']['/v1/downloads/files/{hash}/{name}']['get']['responses'])).toEqual(['200', '206', '304', '401', '403', '404', '406', '410', '416', '429', '500']);
    // Each code is named under its status.
    for (const [code, status] of Object.entries(API_ERROR_CODES)) {
      expect(doc['components']['responses'][`Error${status}`]['description']).toContain(`\`${code}\``);
    }
  });

  it.each(resources.map((r) => [r.name, r] as const))('%s: every field with its type and nullability, every option with its limits', (_, r) => {
    const schema = doc['components']['schemas'][r.entityType];
    expect(Object.keys(schema.properties)).toEqual(r.fields.map((f) => f.name));
    for (const f of r.fields) {
      const type = schema.properties[f.name].type;
      if (nullOnWire(f)) expect(type).toContain('null');
      else expect(type).not.toContain('null');
    }
    const params = doc['paths'][`/v1/odata/v4/${r.name}`]['get']['parameters'].map((p: Json) =>
      p['$ref'] ? doc['components']['parameters'][p['$ref'].split('/').pop()] : p,
    );
    const byName = Object.fromEntries(params.map((p: Json) => [p['name'], p]));
    const expected = ['$select', '$filter', '$top', '$skiptoken', '$count', '$format', 'publication', ...(r.apply !== 'none' ? ['$apply'] : [])];
    expect(Object.keys(byName).sort()).toEqual(expected.sort());
    expect(byName['$top'].schema).toMatchObject({ minimum: TOP_RANGE.min, maximum: TOP_RANGE.max, default: DEFAULT_TOP });
    expect(byName['$format'].schema.enum).toEqual(FORMAT_NAMES);
    expect(Object.keys(doc['paths'][`/v1/odata/v4/${r.name}`]['get']['responses']['200']['content'])).toEqual(FORMAT_NAMES.map((f) => FORMATS[f].mediaType));
    expect(byName['$select'].schema.items.enum).toEqual(r.fields.filter((f) => f.selectable).map((f) => f.name));
    for (const name of filterNames(r)) expect(byName['$filter'].description).toContain(name);
  });
});
