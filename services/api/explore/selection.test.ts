import { describe, expect, it } from 'vitest';
import { parseFilter } from '../odata/parse-filter.js';
import { emptySelection, filterText, rowsOf, searchOfSelection, selectionFromSearch, toggled } from './selection.js';

describe('selection', () => {
  const chosen = {
    ...emptySelection(),
    lists: { ...emptySelection().lists, CharacteristicName: ["Chlorophyll a, 'corrected'", 'pH'], DOI: ['10.25976/abcd-ef12'] },
    region: 'hub.pacific',
    yearFrom: 2015,
    yearTo: 2020,
    locations: [4, 9],
    trend: { startYear: 2015, endYear: 2024 },
  };

  it('writes the $filter text the API accepts: eq for one value, in for several, quotes doubled', () => {
    const text = filterText(chosen);
    expect(text).toBe(
      "DOI eq '10.25976/abcd-ef12' and CharacteristicName in ('Chlorophyll a, ''corrected''','pH') and RegionId eq 'hub.pacific' and ActivityStartYear ge 2015 and ActivityStartYear le 2020",
    );
    expect(() => parseFilter(text)).not.toThrow();
    expect(filterText(emptySelection())).toBe('');
  });

  it('survives the URL round trip, keyed by the API’s field names', () => {
    const search = searchOfSelection(chosen);
    expect(new URLSearchParams(search).getAll('CharacteristicName')).toEqual(["Chlorophyll a, 'corrected'", 'pH']);
    expect(new URLSearchParams(search).get('trend')).toBe('2015-2024');
    expect(selectionFromSearch(search)).toEqual(chosen);
    expect(searchOfSelection(emptySelection())).toBe('');
  });

  it('ignores what it cannot use in a hand-edited URL', () => {
    const s = selectionFromSearch('?YearFrom=20x5&YearTo=&LocationId=-3&LocationId=abc&LocationId=1&LocationId=2&LocationId=3&LocationId=4&LocationId=5&pH=1&trend=2024-2015');
    expect(s).toEqual({ ...emptySelection(), locations: [1, 2, 3, 4] });
    for (const trend of ['10', '2015-24', '2015-2024x', '']) expect(selectionFromSearch(`?trend=${trend}`).trend, trend).toBeNull();
  });

  it('shows observations, their guideline comparisons, or exceedances only: the view is in the URL and names the rows', () => {
    expect(rowsOf(chosen)).toEqual({ resource: 'Observations', filter: filterText(chosen) });
    const exceeds = { ...chosen, view: 'exceeds' as const };
    expect(selectionFromSearch(searchOfSelection(exceeds))).toEqual(exceeds);
    expect(rowsOf(exceeds)).toEqual({ resource: 'GuidelineComparisons', filter: `${filterText(chosen)} and Governing eq true and Verdict eq 'exceeds'` });
    expect(rowsOf({ ...emptySelection(), view: 'exceeds' }).filter).toBe("Governing eq true and Verdict eq 'exceeds'");
    expect(rowsOf({ ...emptySelection(), view: 'comparisons' })).toEqual({ resource: 'GuidelineComparisons', filter: 'Governing eq true' });
    expect(selectionFromSearch('?view=everything').view).toBe('observations');
  });

  it('toggles a value on and off', () => {
    const on = toggled(emptySelection(), 'ActivityMediaName', 'Surface Water', true);
    expect(on.lists.ActivityMediaName).toEqual(['Surface Water']);
    expect(toggled(on, 'ActivityMediaName', 'Surface Water', false).lists.ActivityMediaName).toEqual([]);
  });
});
