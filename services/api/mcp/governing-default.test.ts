import { describe, expect, it } from 'vitest';
import { governingApply, governingFilter } from './governing-default.js';

describe('the governing comparisons as the MCP tools’ default', () => {
  it('adds Governing eq true to a filter of GuidelineComparisons that does not name it, and to no other', () => {
    expect(governingFilter('GuidelineComparisons', undefined)).toMatchObject({ filter: 'Governing eq true', note: expect.any(String) });
    expect(governingFilter('GuidelineComparisons', "Verdict eq 'exceeds' or Publisher eq 'CCME'").filter).toBe("(Verdict eq 'exceeds' or Publisher eq 'CCME') and Governing eq true");
    expect(governingFilter('GuidelineComparisons', 'Governing eq false')).toEqual({ filter: 'Governing eq false' });
    // A quoted 'Governing' is a value, not the field.
    expect(governingFilter('GuidelineComparisons', "Reason eq 'Governing'").filter).toBe("(Reason eq 'Governing') and Governing eq true");
    expect(governingFilter('Observations', "CharacteristicName eq 'pH'")).toEqual({ filter: "CharacteristicName eq 'pH'" });
  });

  it('puts the condition into the $apply’s one filter step, or a step of its own first', () => {
    expect(governingApply('GuidelineComparisons', 'groupby((LocationId),aggregate($count as N))').apply).toBe('filter(Governing eq true)/groupby((LocationId),aggregate($count as N))');
    expect(governingApply('GuidelineComparisons', "filter(Verdict eq 'exceeds' and Reason eq 'a (b)')/aggregate($count as N)").apply)
      .toBe("filter((Verdict eq 'exceeds' and Reason eq 'a (b)') and Governing eq true)/aggregate($count as N)");
    expect(governingApply('GuidelineComparisons', "filter(Reason eq 'it''s )')/aggregate($count as N)").apply).toBe("filter((Reason eq 'it''s )') and Governing eq true)/aggregate($count as N)");
    expect(governingApply('GuidelineComparisons', 'groupby((Governing),aggregate($count as N))')).toEqual({ apply: 'groupby((Governing),aggregate($count as N))' });
    expect(governingApply('Records', 'aggregate($count as N)')).toEqual({ apply: 'aggregate($count as N)' });
  });
});
