import { describe, expect, it } from 'vitest';
import { resources } from './catalogue.js';
import { columnNames, locationIdColumns, storageKeys, type StorageTable } from './storage.js';

/** Where the API's SQL relies on each key column (services/api/query/): a renamed column must fail here. */
const keyTables: { readonly [K in keyof typeof storageKeys]: readonly StorageTable[] } = {
  id: ['datasets', 'locations', 'observations'],
  doi: ['datasets', 'locations', 'observations', 'observation_rollup', 'observation_region_rollup'],
  locationId: ['observations', 'observation_stats', 'location_regions'],
  regionId: ['location_regions', 'observation_region_rollup'],
  count: ['observation_stats', 'observation_rollup', 'observation_region_rollup'],
  firstObsId: ['locations'],
  lastObsId: ['locations'],
};

describe('storage keys', () => {
  it.each(Object.entries(keyTables))('%s is a column of every table related by it', (key, tables) => {
    const column = storageKeys[key as keyof typeof storageKeys];
    for (const table of tables) expect(columnNames(table), `${table}.${column}`).toContain(column);
  });

  it('each resource is keyed by the id column', () => {
    for (const r of resources) expect(r.fields.find((f) => f.name === r.key)?.column, r.name).toBe(storageKeys.id);
  });

  it('every location Id column exists in its table', () => {
    for (const [table, column] of Object.entries(locationIdColumns)) expect(columnNames(table as StorageTable), table).toContain(column);
  });
});
