import { describe, expect, it } from 'vitest';
import { activityGroupFor, activityGroupOf, activityGroupTypes, isQualityControl, qualityControlGroups } from './activity-group.js';
import { dimensions } from './dimensions.js';
import { vocabularies } from './vocabularies.js';

describe('activity groups', () => {
  it('maps every one of the 35 ActivityTypes of the vocabulary, and nothing else', () => {
    expect(Object.keys(activityGroupOf).sort()).toEqual([...vocabularies.ActivityType].sort());
    expect(Object.keys(activityGroupOf)).toHaveLength(35);
  });

  it("uses the seven groups of upstream's list; Other is left for types outside the lookup", () => {
    expect(activityGroupTypes).toHaveLength(7);
    for (const group of Object.values(activityGroupOf)) expect(activityGroupTypes).toContain(group);
    expect(new Set(Object.values(activityGroupOf))).toEqual(new Set(activityGroupTypes.filter((g) => g !== 'Other')));
  });

  it('agrees with the ActivityGroupType dimension description', () => {
    const description = dimensions.find((d) => d.name === 'ActivityGroupType')?.description ?? '';
    for (const group of activityGroupTypes) expect(description).toContain(group);
  });

  it.each([
    ['Field Msr/Obs-Continuous Time Series', 'Continuous Data'],
    ['Field Msr/Obs', 'Field Measure'],
    // Upstream's lookup, where an earlier reading of the group names had Continuous Data and Other.
    ['Field Msr/Obs-Portable Data Logger', 'Field Measure'],
    ['Sample-Other', 'Lab Sample'],
    ['Sample-Routine', 'Lab Sample'],
    ['Quality Control Sample-Field Blank', 'Quality Control - Lab Sample'],
    ['Quality Control Field Replicate Msr/Obs', 'Quality Control - Field Measure'],
    ['Unspecified', 'Unspecified'],
    ['Quality Control Sample-Lab Spike Target', 'Other'],
    ['toString', 'Other'],
    ['', 'Other'],
  ])('%s → %s', (type, group) => {
    expect(activityGroupFor(type)).toBe(group);
  });

  it('quality control is exactly every Quality Control… type and Sample-Positive Control (their two groups)', () => {
    const qc = Object.keys(activityGroupOf).filter(isQualityControl).sort();
    const expected = Object.keys(activityGroupOf).filter((t) => t.startsWith('Quality Control') || t === 'Sample-Positive Control').sort();
    expect(qc).toEqual(expected);
    expect(qc.length).toBeGreaterThan(5);
    expect([...qualityControlGroups].sort()).toEqual(activityGroupTypes.filter((g) => g.startsWith('Quality Control')).sort());
    expect(isQualityControl('Sample-Routine')).toBe(false);
    expect(isQualityControl('Field Msr/Obs-Continuous Time Series')).toBe(false);
  });
});
