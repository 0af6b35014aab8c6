import { describe, expect, it } from 'vitest';
import { uploadColumns } from './record-fields.js';
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
    expect(inVocabulary('MeasurementUnit', 'deg C')).toBe(true);
    expect(inVocabulary('MeasurementUnit', 'constructor')).toBe(false);
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
