import { describe, expect, it } from 'vitest';
import { uploadColumns } from './upload-columns.js';
import { upstreamSource } from './upstream.js';
import { inVocabulary, vocabularies, vocabularyOfColumn, type VocabularyName } from './vocabularies.js';

describe('vocabularies', () => {
  it.each(Object.entries(vocabularies))('%s is a non-empty list of distinct, trimmed strings', (_name, values) => {
    expect(values.length).toBeGreaterThan(0);
    expect(new Set(values).size).toBe(values.length);
    for (const v of values) {
      expect(typeof v).toBe('string');
      expect(v).toBe(v.trim());
      expect(v).not.toBe('');
    }
  });

  it('holds the full CharacteristicName list, with the common field parameters', () => {
    expect(vocabularies.CharacteristicName.length).toBeGreaterThan(1300);
    for (const name of ['Temperature, water', 'pH', 'Dissolved oxygen (DO)', 'Specific conductance', 'Escherichia coli', 'Total Phosphorus, mixed forms']) {
      expect(inVocabulary('CharacteristicName', name)).toBe(true);
    }
  });

  it('matches exactly, case-sensitively', () => {
    expect(inVocabulary('MonitoringLocationType', 'River/Stream')).toBe(true);
    expect(inVocabulary('MonitoringLocationType', 'river/stream')).toBe(false);
    expect(inVocabulary('ResultUnit', 'deg C')).toBe(true);
    expect(inVocabulary('ResultUnit', 'constructor')).toBe(false);
  });

  it('maps only upload columns, to known vocabularies', () => {
    const columns = new Set(uploadColumns.map((f) => f.name));
    for (const [column, vocabulary] of Object.entries(vocabularyOfColumn)) {
      expect(columns.has(column), column).toBe(true);
      expect(vocabularies[vocabulary as VocabularyName], vocabulary).toBeDefined();
    }
  });

  it('uses every vocabulary for at least one column', () => {
    expect(new Set(Object.values(vocabularyOfColumn))).toEqual(new Set(Object.keys(vocabularies)));
  });
});

describe('schema 3.0.0 (upstream values, as published)', () => {
  it('comes from the pinned upstream commit: a refresh (scripts/build/upstream-schema.ts) changes this on purpose', () => {
    expect(upstreamSource).toMatchObject({ repository: 'datastreamapp/schema', version: '3.0.0', commit: '145097a356edbe59b115c32271020316ed78bd19' });
  });

  it.each([
    ['ActivityMediaName', 'Groundwater'],
    ['MonitoringLocationType', 'Well'],
    ['MonitoringLocationType', 'Piezometer'],
    ['MonitoringLocationHorizontalCoordinateReferenceSystem', 'OTHER'],
    ['ActivityMediaName', 'Surface Water'],
  ] as const)('%s accepts %s', (vocabulary, value) => {
    expect(inVocabulary(vocabulary, value)).toBe(true);
  });

  it('maps each unit column to its own upstream list', () => {
    expect(vocabularyOfColumn.ResultUnit).toBe('ResultUnit');
    expect(vocabularyOfColumn.ActivityDepthHeightUnit).toBe('ActivityDepthHeightUnit');
    expect(vocabularyOfColumn.WellDepthUnit).toBe('WellDepthUnit');
  });
});
