import { describe, expect, it } from 'vitest';
import { activityGroupFor, activityGroupOf, activityGroupTypes } from './activity-group.js';
import { dimensions } from './dimensions.js';
import { vocabularies } from './vocabularies.js';

describe('activity groups', () => {
  it('maps every one of the 35 ActivityTypes of the vocabulary, and nothing else', () => {
    expect(Object.keys(activityGroupOf).sort()).toEqual([...vocabularies.ActivityType].sort());
    expect(Object.keys(activityGroupOf)).toHaveLength(35);
  });

  it('uses exactly the seven groups, each at least once', () => {
    expect(activityGroupTypes).toHaveLength(7);
    expect(new Set(Object.values(activityGroupOf))).toEqual(new Set(activityGroupTypes));
  });

  it('agrees with the ActivityGroupType dimension description', () => {
    const description = dimensions.find((d) => d.name === 'ActivityGroupType')?.description ?? '';
    for (const group of activityGroupTypes) expect(description).toContain(group);
  });

  it.each([
    ['Field Msr/Obs-Continuous Time Series', 'Continuous Data'],
    ['Field Msr/Obs', 'Field Measure'],
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
