import { describe, expect, it } from 'vitest';
import { DATASTREAM_DOI_PATTERN, datasetMetadataSchema, DOI_SYNTAX, doiKey, metadataSchema } from './metadata-schema.js';
import { metadataFields } from './metadata-fields.js';

const minimal = { DOI: '10.25976/ab12-cd34', DatasetName: 'Bow River Monitoring' };

function messages(input: unknown): string[] {
  const result = datasetMetadataSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('datasetMetadataSchema', () => {
  it('accepts a full metadata.json with every catalogue field but TemporalExtent', () => {
    const full: Record<string, unknown> = { ...minimal, Id: '6f1c2a9e-3b7d-4c1e-9a2b-0d4e5f6a7b8c', Version: '1.0.0', TopicCategoryCode: ['inlandWaters'], Keywords: ['water quality', 'rivière'], CreateTimestamp: '2021-04-01T12:00:00.000Z', PublishedTimestamp: '2021-04-02T08:00:00-06:00', ValidationLevel: 'storable' };
    for (const f of metadataFields) if (!(f.name in full) && f.type === 'string') full[f.name] = `${f.name} text`;
    expect(Object.keys(full).sort()).toEqual(metadataFields.map((f) => f.name).filter((n) => n !== 'TemporalExtent').sort());
    expect(messages(full)).toEqual([]);
  });

  it('accepts the minimum, and nulls for optional fields', () => {
    expect(messages(minimal)).toEqual([]);
    expect(messages({ ...minimal, Abstract: null, Keywords: null })).toEqual([]);
  });

  it.each([
    ['10.25976/ab12-cd34', true],
    ['10.5066/P9ABCDEF', true],
    ['10.23719/1234567', true],
    ['10.80052/test-2026(01);v:2/part\'a', true],
    ['10.1000.10/123 456', true],
    ['10.1002/(SICI)1097-4679(199711)53:7<743::AID-JCLP8>3.0.CO;2-R', true],
    ['10.5066/ΔP9', true],
    ['https://doi.org/10.25976/ab12-cd34', false],
    ['doi:10.5066/P9ABCDEF', false],
    ['10.5066/', false],
    ['10./abc', false],
    ['10.ab/abc', false],
    ['11.5066/abc', false],
    ['10.5066/ abc', false],
    ['10.5066/abc ', false],
    ['10.5066/ab\ncd', false],
    ['10.5066/ab\u200bcd', false],
  ])('DOI %j has the standard DOI syntax: %s', (doi, ok) => {
    expect(DOI_SYNTAX.test(doi)).toBe(ok);
    const found = messages({ ...minimal, DOI: doi });
    expect(found).toEqual(ok ? [] : [`DOI: DOI '${doi}' is not a DOI: expected 10.<registrant>/<suffix> without a resolver prefix, e.g. 10.5066/P9ABCDEF`]);
  });

  it('compares DOIs case-insensitively through one key', () => {
    expect(doiKey('10.5066/P9ABC(d);E')).toBe(doiKey('10.5066/p9abc(D);e'));
  });

  it("restricts DOIs to an operator's pattern, naming it", () => {
    const strict = metadataSchema({ doiPattern: DATASTREAM_DOI_PATTERN });
    expect(strict.safeParse(minimal).success).toBe(true);
    const result = strict.safeParse({ ...minimal, DOI: '10.5066/P9ABCDEF' });
    expect(result.success ? [] : result.error.issues.map((i) => i.message)).toEqual([
      `DOI '10.5066/P9ABCDEF' does not match DOI_PATTERN ${DATASTREAM_DOI_PATTERN.source}, the DOIs this hub's operator accepts`,
    ]);
    expect(datasetMetadataSchema.safeParse({ ...minimal, DOI: '10.5066/P9ABCDEF' }).success).toBe(true);
  });

  it.each([
    [{ DatasetName: 'x' }, ['DOI: DOI is required: give it in metadata.json, e.g. "DOI": "10.5066/P9ABCDEF"']],
    [{ DatasetName: 'x', DOI: '' }, ['DOI: DOI is required: give it in metadata.json, e.g. "DOI": "10.5066/P9ABCDEF"']],
    [{ DOI: '10.25976/ab12-cd34' }, ['DatasetName: DatasetName is required: give it in metadata.json, e.g. "DatasetName": "Bow River Monitoring"']],
    [{ ...minimal, DatasetName: null }, ['DatasetName: DatasetName is required: give it in metadata.json, e.g. "DatasetName": "Bow River Monitoring"']],
    [{ ...minimal, DatasetName: '  ' }, ['DatasetName: DatasetName is required: give it in metadata.json, e.g. "DatasetName": "Bow River Monitoring"']],
    [{ ...minimal, DatasetName: 7 }, ['DatasetName: DatasetName must be a string']],
    [{ ...minimal, Id: 'abc' }, ['Id: Id must be a UUID']],
    [{ ...minimal, Keywords: 'a, b' }, ['Keywords: Keywords must be an array of strings']],
    [{ ...minimal, TopicCategoryCode: [1] }, ['TopicCategoryCode.0: TopicCategoryCode[] must be a string']],
    [{ ...minimal, CreateTimestamp: '01/04/2021' }, ['CreateTimestamp: CreateTimestamp must be an ISO 8601 date or date-time with a UTC offset, e.g. 2021-04-01T12:00:00Z']],
    [{ ...minimal, Version: 3 }, ['Version: Version must be a string']],
  ])('rejects %o', (input, expected) => {
    expect(messages(input)).toEqual(expected);
  });

  it('reads a blank optional field ("" or null) as absent, as an empty CSV cell is, and keeps any Version text', () => {
    const blanks = Object.fromEntries(metadataFields.filter((f) => !['DOI', 'DatasetName', 'TemporalExtent'].includes(f.name)).map((f, i) => [f.name, i % 2 ? '' : null]));
    const parsed = datasetMetadataSchema.parse({ ...minimal, ...blanks });
    expect(Object.entries(parsed).filter(([, v]) => v !== undefined)).toEqual(Object.entries(minimal));
    expect(messages({ ...minimal, Version: '', CreateTimestamp: '', Id: '' })).toEqual([]);
    expect(datasetMetadataSchema.parse({ ...minimal, Version: 'v2 (2021 download)' }).Version).toBe('v2 (2021 download)');
  });

  it('rejects unknown keys, naming them and the allowed ones, and TemporalExtent as derived', () => {
    const [message] = messages({ ...minimal, TemporalExtent: ['2020-01-01', '2020-12-31'], Licence_: 'x' });
    expect(message).toContain("unknown key(s) 'TemporalExtent', 'Licence_' in metadata.json");
    expect(message).toContain('TemporalExtent is derived by ingest');
    expect(message).toContain('allowed: Id, DOI, Version, DatasetName');
  });
});
