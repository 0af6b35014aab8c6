import { describe, expect, it } from 'vitest';
import { datasetMetadataSchema, DOI_PATTERN } from './metadata-schema.js';
import { metadataFields } from './metadata-fields.js';

const minimal = { DOI: '10.25976/ab12-cd34', DatasetName: 'Bow River Monitoring' };

function messages(input: unknown): string[] {
  const result = datasetMetadataSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('datasetMetadataSchema', () => {
  it('accepts a full metadata.json with every catalogue field but TemporalExtent', () => {
    const full: Record<string, unknown> = { ...minimal, Id: '6f1c2a9e-3b7d-4c1e-9a2b-0d4e5f6a7b8c', Version: '1.0.0', TopicCategoryCode: ['inlandWaters'], Keywords: ['water quality', 'rivière'], CreateTimestamp: '2021-04-01T12:00:00.000Z', PublishedTimestamp: '2021-04-02T08:00:00-06:00' };
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
    ['10.81029/0000-aa99', true],
    ['10.25976/AB12-cd34', false],
    ['10.25976/ab12-cdef', false],
    ['10.1234/ab12-cd34', false],
    ['https://doi.org/10.25976/ab12-cd34', false],
  ])('DOI %s matches the DataStream pattern: %s', (doi, ok) => {
    expect(DOI_PATTERN.test(doi)).toBe(ok);
    expect(messages({ ...minimal, DOI: doi }).length === 0).toBe(ok);
  });

  it.each([
    [{ DatasetName: 'x' }, ['DOI: DOI is required']],
    [{ DOI: '10.25976/ab12-cd34' }, ['DatasetName: DatasetName must be a string']],
    [{ ...minimal, DatasetName: '  ' }, ['DatasetName: DatasetName is required']],
    [{ ...minimal, Id: 'abc' }, ['Id: Id must be a UUID']],
    [{ ...minimal, Keywords: 'a, b' }, ['Keywords: Keywords must be an array of strings']],
    [{ ...minimal, TopicCategoryCode: [1] }, ['TopicCategoryCode.0: TopicCategoryCode[] must be a string']],
    [{ ...minimal, CreateTimestamp: '01/04/2021' }, ['CreateTimestamp: CreateTimestamp must be an ISO 8601 date or date-time with a UTC offset, e.g. 2021-04-01T12:00:00Z']],
    [{ ...minimal, Version: 'v1' }, ['Version: Version must look like 1.0.0']],
  ])('rejects %o', (input, expected) => {
    expect(messages(input)).toEqual(expected);
  });

  it('rejects unknown keys, naming them and the allowed ones, and TemporalExtent as derived', () => {
    const [message] = messages({ ...minimal, TemporalExtent: ['2020-01-01', '2020-12-31'], Licence_: 'x' });
    expect(message).toContain("unknown key(s) 'TemporalExtent', 'Licence_' in metadata.json");
    expect(message).toContain('TemporalExtent is derived by ingest');
    expect(message).toContain('allowed: Id, DOI, Version, DatasetName');
  });
});
