/**
 * /Metadata as DataStream's public API defines it, field by field: the GetMetadata schema of its OpenAPI document
 * and its sample response (datastreamapp/api-docs, docs/openapi/openapischema.json and docs/README.md). The official
 * clients build their tables from each row's keys and values, so a field the contract types as text must stay text
 * when a provider leaves it blank: `""`, as the sample's OtherDataSources and Disclaimer are, not null. Checked on
 * a dataset that gives every optional field (the shared fixture) and on one that leaves every one of them blank,
 * both published by the real ingest CLI.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { metadataFields } from '../../schemas/index.js';
import { REPO_ROOT } from './testing/fixture-db.js';
import { openFixtureApp, type FixtureApp } from './testing/fixture-app.js';

type Kind = 'uuid' | 'required text' | 'text' | 'text or null' | 'version or null' | 'timestamp or null' | 'list or null' | 'date pair or null';

/**
 * The contract types every field but TemporalExtent as a string; its sample writes DataSourceURL as null and the
 * lists as arrays. Version, the timestamps and the lists are null here when not given: a DataStream dataset always
 * has them (its upload requires them), ours needs only DOI and DatasetName, and no string could stand for them.
 */
const CONTRACT: Readonly<Record<string, Kind>> = {
  Id: 'uuid',
  DOI: 'required text',
  Version: 'version or null',
  DatasetName: 'required text',
  DataStewardEmail: 'text',
  DataCollectionOrganization: 'text',
  DataUploadOrganization: 'text',
  ProgressCode: 'text',
  MaintenanceFrequencyCode: 'text',
  Abstract: 'text',
  DataCollectionInformation: 'text',
  DataProcessing: 'text',
  FundingSources: 'text',
  DataSourceURL: 'text or null',
  OtherDataSources: 'text',
  Citation: 'text',
  Licence: 'text',
  Disclaimer: 'text',
  TopicCategoryCode: 'list or null',
  Keywords: 'list or null',
  CreateTimestamp: 'timestamp or null',
  PublishedTimestamp: 'timestamp or null',
  TemporalExtent: 'date pair or null',
};

const isText = (v: unknown) => typeof v === 'string';
const CHECKS: Readonly<Record<Kind, (v: unknown) => boolean>> = {
  uuid: (v) => isText(v) && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v as string),
  'required text': (v) => isText(v) && (v as string).length > 0,
  text: isText,
  'text or null': (v) => v === null || isText(v),
  'version or null': (v) => v === null || (isText(v) && /^[0-9]+\.[0-9]+\.[0-9]+$/.test(v as string)),
  'timestamp or null': (v) => v === null || (isText(v) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v as string)),
  'list or null': (v) => v === null || (Array.isArray(v) && v.every(isText)),
  'date pair or null': (v) => v === null || (Array.isArray(v) && v.length === 2 && v.every((d) => isText(d) && /^\d{4}-\d{2}-\d{2}$/.test(d as string))),
};

const BLANK_DOI = '10.25976/blnk-bb22';
const OPTIONAL = metadataFields.filter((f) => f.nullable && f.name !== 'TemporalExtent').map((f) => f.name);

let dir: string;
let full: FixtureApp;
let blank: FixtureApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-metadata-'));
  const folder = join(dir, 'src', 'blank');
  cpSync(join(REPO_ROOT, 'ingest/fixtures/src/alpha'), folder, { recursive: true });
  // Every optional field blank, half of them "" and half null: both mean "not given".
  const blanks = Object.fromEntries(OPTIONAL.map((name, i) => [name, i % 2 ? null : '']));
  writeFileSync(join(folder, 'metadata.json'), JSON.stringify({ DOI: BLANK_DOI, DatasetName: 'Blank fields', ...blanks }));
  const path = join(dir, 'blank.duckdb');
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'ingest/main.ts', 'ingest'], { cwd: REPO_ROOT, env: { ...process.env, SRC: join(dir, 'src'), DUCKDB_PATH: path } });
  [full, blank] = await Promise.all([openFixtureApp(inject('apiFixtureDb')), openFixtureApp(path)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([full?.close(), blank?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function metadataRows(app: FixtureApp, format = 'json'): Promise<Response> {
  const res = await app.app.request(`/v1/odata/v4/Metadata?$format=${format}`);
  expect(res.status).toBe(200);
  return res;
}

describe('/Metadata against DataStream\'s contract', () => {
  it('the contract names every field of the default projection, in the catalogue', () => {
    expect(Object.keys(CONTRACT)).toEqual(metadataFields.filter((f) => !f.onRequest).map((f) => f.name));
  });

  it.each([
    ['every optional field given (the shared fixture)', () => full],
    ['every optional field blank', () => blank],
  ])('with %s, each row has every field, each of its contract type', async (_, app) => {
    const { value } = (await (await metadataRows(app())).json()) as { value: Record<string, unknown>[] };
    expect(value.length).toBeGreaterThan(0);
    for (const row of value) {
      expect(Object.keys(row)).toEqual(Object.keys(CONTRACT));
      const wrong = Object.entries(CONTRACT).filter(([name, kind]) => !CHECKS[kind](row[name]));
      expect(wrong.map(([name, kind]) => `${name}: ${JSON.stringify(row[name])} is not ${kind}`)).toEqual([]);
    }
  });

  it('a blank OtherDataSources and Disclaimer are "" (as the contract\'s sample), a blank DataSourceURL null', async () => {
    const { value } = (await (await metadataRows(blank)).json()) as { value: Record<string, unknown>[] };
    expect(value[0]).toMatchObject({ DOI: BLANK_DOI, OtherDataSources: '', Disclaimer: '', Abstract: '', Citation: '', DataSourceURL: null, Version: null });
  });

  it('Arrow pages carry the same "" (not null), and declare those fields not nullable', async () => {
    const table = tableFromIPC(new Uint8Array(await (await metadataRows(blank, 'arrow')).arrayBuffer()));
    expect(table.getChild('Disclaimer')?.get(0)).toBe('');
    expect(table.schema.fields.find((f) => f.name === 'Disclaimer')?.nullable).toBe(false);
    expect(table.getChild('DataSourceURL')?.get(0)).toBeNull();
  });

  it('$metadata declares the text fields not nullable and DataSourceURL nullable', async () => {
    const xml = await (await full.app.request('/v1/odata/v4/$metadata')).text();
    expect(xml).toMatch(/<Property Name="Disclaimer" Type="Edm.String" Nullable="false"/);
    expect(xml).toMatch(/<Property Name="DataSourceURL" Type="Edm.String" Nullable="true"/);
  });
});
