/**
 * "Pick a region": every region of the API's `regions` collection (watershed sets such as huc8 and huc10, hubs)
 * in one select, grouped by set, named as their source names them. Choosing one selects its RegionId, exactly
 * as the region facet and a click on its outline do. Names are text nodes only (new Option), never markup.
 */
import { h } from './dom.js';

interface RegionProperties {
  readonly RegionId?: unknown;
  readonly name?: unknown;
  readonly set?: unknown;
}

export interface WatershedPicker {
  show(region: string | null): void;
}

export function watershedPicker(select: HTMLSelectElement, regions: object, onPick: (region: string | null) => void): WatershedPicker {
  const features = ((regions as { features?: { properties?: RegionProperties }[] }).features ?? []).map((f) => f.properties ?? {});
  const bySet = new Map<string, { id: string; name: string }[]>();
  for (const p of features) {
    if (typeof p.RegionId !== 'string') continue;
    const set = typeof p.set === 'string' ? p.set : p.RegionId.split('.')[0]!;
    const name = typeof p.name === 'string' ? p.name : p.RegionId;
    bySet.get(set)?.push({ id: p.RegionId, name }) ?? bySet.set(set, [{ id: p.RegionId, name }]);
  }
  const ids = new Set(features.map((p) => p.RegionId));
  select.replaceChildren(
    new Option('(none)', ''),
    ...[...bySet].map(([set, list]) => {
      const group = h('optgroup', { label: set });
      group.append(...list.sort((a, b) => a.name.localeCompare(b.name)).map((r) => new Option(`${r.name} (${r.id})`, r.id)));
      return group;
    }),
  );
  select.disabled = bySet.size === 0;
  select.addEventListener('change', () => onPick(select.value || null));
  return {
    show(region) {
      select.value = region && ids.has(region) ? region : '';
    },
  };
}
