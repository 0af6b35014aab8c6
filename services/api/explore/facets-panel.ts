/**
 * The facet sidebar: one fieldset per facet, each value a native checkbox or radio with its exact count under
 * the other selections, the year range as two selects. Native controls give labels and keyboard use for free;
 * after each re-render the control that had focus gets it back, so keyboard users keep their place.
 */
import type { Facet, FacetCounts } from './cube.js';
import { fmt, h } from './dom.js';
import { toggled, type ListFacet, type Selection } from './selection.js';

export const FACET_TITLES: Readonly<Record<Facet, string>> = {
  DOI: 'Dataset',
  RegionId: 'Region',
  CharacteristicName: 'Characteristic',
  ActivityMediaName: 'Medium',
  ActivityGroupType: 'Activity group',
  MonitoringLocationType: 'Location type',
  ActivityStartYear: 'Year',
};

/** Characteristics run to hundreds: the list shows this many until the search narrows it. */
const SHOWN = 12;

export interface FacetsPanel {
  /** `exceedances`: the same counts of the guideline comparisons that exceed, once they are loaded. */
  render(counts: FacetCounts, s: Selection, exceedances?: FacetCounts): void;
}

/** A value's exceedances beside its count, when it has any. */
function exceeding(n: number | undefined): HTMLElement | null {
  return n ? h('span', { class: 'exceed', title: 'Results that exceed a guideline: governing GuidelineComparisons, one per result, publisher and term' }, `${fmt(n)} exceed`) : null;
}

export function facetsPanel(root: HTMLElement, label: (f: Facet, value: string) => string, onChange: (s: Selection) => void): FacetsPanel {
  let selection: Selection;
  let last: FacetCounts;
  let exceeds: FacetCounts | undefined;
  let search = '';

  function listFacet(f: ListFacet): HTMLElement {
    const counts = last.counts[f];
    const chosen = selection.lists[f];
    const needle = search.toLowerCase();
    // Characteristics run to hundreds: only those the other selections leave are listed. Shorter facets list
    // every value, 0 included, so a choice never disappears from under the pointer.
    const known = f === 'CharacteristicName' ? [...counts.keys()] : last.values[f];
    let values = [...new Set([...known, ...chosen])].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || label(f, a).localeCompare(label(f, b)));
    if (f === 'CharacteristicName' && needle) values = values.filter((v) => chosen.includes(v) || v.toLowerCase().includes(needle));
    const hidden = f === 'CharacteristicName' ? Math.max(0, values.length - SHOWN) : 0;
    if (hidden) values = [...values.slice(0, SHOWN), ...values.slice(SHOWN).filter((v) => chosen.includes(v))];
    const items = values.map((v) =>
      h('li', {},
        h('label', {},
          h('input', { type: 'checkbox', 'data-facet': f, 'data-value': v, checked: chosen.includes(v), onchange: (e) => onChange(toggled(selection, f, v, (e.target as HTMLInputElement).checked)) }),
          h('span', { class: 'name' }, label(f, v)),
          h('span', { class: counts.get(v) ? 'count' : 'count zero' }, fmt(counts.get(v) ?? 0)),
          exceeding(exceeds?.counts[f].get(v)))));
    const searchBox = f === 'CharacteristicName'
      ? h('input', { type: 'search', id: 'characteristic-search', 'aria-label': 'Search characteristics', placeholder: 'Search characteristics…', value: search, oninput: (e) => { search = (e.target as HTMLInputElement).value; rerender(); } })
      : null;
    return h('fieldset', { class: 'facet', 'data-facet': f },
      h('legend', {}, FACET_TITLES[f]),
      searchBox,
      h('ul', {}, ...items),
      hidden ? h('p', { class: 'more' }, `${fmt(hidden)} more: type in the search to find them.`) : null,
      items.length === 0 ? h('p', { class: 'more' }, 'No value matches.') : null);
  }

  function regionFacet(): HTMLElement {
    const counts = last.counts.RegionId;
    const radio = (value: string, text: string, n: number | undefined) =>
      h('li', {},
        h('label', {},
          h('input', { type: 'radio', name: 'RegionId', 'data-facet': 'RegionId', 'data-value': value, checked: (selection.region ?? '') === value, onchange: () => onChange({ ...selection, region: value || null }) }),
          h('span', { class: 'name' }, text),
          n === undefined ? null : h('span', { class: n ? 'count' : 'count zero' }, fmt(n)),
          value ? exceeding(exceeds?.counts.RegionId.get(value)) : null));
    const ids = [...last.values.RegionId].sort((a, b) => label('RegionId', a).localeCompare(label('RegionId', b)));
    return h('fieldset', { class: 'facet', 'data-facet': 'RegionId' },
      h('legend', {}, FACET_TITLES.RegionId),
      h('ul', {}, radio('', 'Any region', undefined), ...ids.map((id) => radio(id, label('RegionId', id), counts.get(id) ?? 0))));
  }

  function yearFacet(): HTMLElement {
    const counts = last.counts.ActivityStartYear;
    const years = last.values.ActivityStartYear.map(Number).sort((a, b) => a - b);
    const select = (which: 'yearFrom' | 'yearTo', text: string) => {
      const current = selection[which];
      const options = [h('option', { value: '' }, 'Any'), ...years.map((y) => h('option', { value: y, selected: current === y }, `${y} (${fmt(counts.get(String(y)) ?? 0)})`))];
      if (current !== null && !years.includes(current)) options.push(h('option', { value: current, selected: true }, String(current)));
      return h('label', {}, text, ' ',
        h('select', { 'data-facet': 'ActivityStartYear', 'data-value': which, onchange: (e) => { const v = (e.target as HTMLSelectElement).value; onChange({ ...selection, [which]: v ? Number(v) : null }); } }, ...options));
    };
    return h('fieldset', { class: 'facet years', 'data-facet': 'ActivityStartYear' }, h('legend', {}, `${FACET_TITLES.ActivityStartYear} (ActivityStartYear)`), select('yearFrom', 'From'), select('yearTo', 'To'));
  }

  function rerender(): void {
    const active = document.activeElement as HTMLElement | null;
    const key = active?.id === 'characteristic-search' ? '#characteristic-search' : active?.dataset['facet'] ? `[data-facet="${CSS.escape(active.dataset['facet'])}"][data-value="${CSS.escape(active.dataset['value'] ?? '')}"]` : undefined;
    const order: Facet[] = ['DOI', 'RegionId', 'CharacteristicName', 'ActivityMediaName', 'ActivityGroupType', 'MonitoringLocationType', 'ActivityStartYear'];
    // Lists scroll: a click must not send the list back to its top, and a selection opened from a URL is shown.
    const scrolled = new Map([...root.querySelectorAll<HTMLElement>('fieldset[data-facet] ul')].map((ul) => [ul.parentElement!.dataset['facet'], ul.scrollTop]));
    root.replaceChildren(...order.map((f) => (f === 'RegionId' ? regionFacet() : f === 'ActivityStartYear' ? yearFacet() : listFacet(f))));
    for (const ul of root.querySelectorAll<HTMLElement>('fieldset[data-facet] ul')) {
      const before = scrolled.get(ul.parentElement!.dataset['facet']);
      const checked = ul.querySelector<HTMLElement>('input:checked')?.closest('li');
      if (before !== undefined) ul.scrollTop = before;
      else if (checked) ul.scrollTop = checked.offsetTop - ul.offsetTop - ul.clientHeight / 2;
    }
    if (key) {
      const again = root.querySelector<HTMLElement>(key);
      again?.focus();
      if (again instanceof HTMLInputElement && again.type === 'search') again.setSelectionRange(search.length, search.length);
    }
  }

  return {
    render(counts, s, exceedances) {
      last = counts;
      exceeds = exceedances;
      selection = s;
      rerender();
    },
  };
}


