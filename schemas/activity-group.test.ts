import { describe, expect, it } from 'vitest';
import { activityGroupFor, activityGroupOf, activityGroupTypes, isQualityControl, qualityControlGroups, qualityControlSql } from './activity-group.js';
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
});

describe('quality-control results', () => {
  it("are exactly the ActivityTypes upstream's lookup groups as quality control: every Quality Control… type and Sample-Positive Control", () => {
    const qc = Object.keys(activityGroupOf).filter(isQualityControl).sort();
    expect(qc).toEqual(Object.keys(activityGroupOf).filter((t) => t.startsWith('Quality Control') || t === 'Sample-Positive Control').sort());
    expect(qualityControlGroups).toEqual(activityGroupTypes.filter((g) => g.startsWith('Quality Control')));
    for (const t of ['Sample-Routine', 'Field Msr/Obs', 'Field Msr/Obs-Continuous Time Series', 'Sample-Other', 'a legacy WQX type']) expect(isQualityControl(t), t).toBe(false);
  });

  it('are selected in SQL by their stored group', () => {
    expect(qualityControlSql('o."ActivityGroupType"')).toBe(`o."ActivityGroupType" IN ('Quality Control - Field Measure', 'Quality Control - Lab Sample')`);
  });
});
