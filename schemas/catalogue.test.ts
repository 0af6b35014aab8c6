import { describe, expect, it } from 'vitest';
import { getDimension, getResource, resources } from './catalogue.js';
import { dimensionAliases, dimensions } from './dimensions.js';
import { ownTables, type TableName } from './field.js';
import { metadataFields } from './metadata-fields.js';
import { activityFields, observationFields } from './observation-fields.js';
import { monitoringLocationFields, recordFields, storedUploadColumns } from './record-fields.js';
import { uploadColumns, uploadOnlyColumns } from './upload-columns.js';
import { upstreamColumns } from './upstream.js';
import { storageTables } from './storage.js';
import { vocabularyOfColumn } from './vocabularies.js';

const names = (fields: readonly { name: string }[]) => fields.map((f) => f.name);
const columnsOf = (table: keyof typeof storageTables) => storageTables[table].map((c) => c.column);

describe('field catalogue integrity', () => {
  it('Observation has 34 fields: Id, DOI, LocationId, then the 31 activity fields', () => {
    expect(activityFields).toHaveLength(31);
    expect(observationFields).toHaveLength(34);
    expect(names(observationFields)).toEqual(['Id', 'DOI', 'LocationId', ...names(activityFields)]);
  });

  it('Record = Id, DOI, DatasetName, the 10 MonitoringLocation* fields, then the 31 activity fields', () => {
    expect(monitoringLocationFields).toHaveLength(10);
    for (const f of monitoringLocationFields) expect(f.name).toMatch(/^MonitoringLocation/);
    expect(names(recordFields)).toEqual(['Id', 'DOI', 'DatasetName', ...names(monitoringLocationFields), ...names(activityFields)]);
    expect(recordFields).toHaveLength(44);
  });

  it('stored upload columns are the Record columns without Id and DOI', () => {
    expect(names(storedUploadColumns)).toEqual(names(recordFields).filter((n) => n !== 'Id' && n !== 'DOI'));
  });

  it('upload columns are upstream template columns, in its order; every stored one is among them', () => {
    expect(names(uploadColumns)).toEqual(upstreamColumns.map((c) => c.name));
    for (const f of storedUploadColumns) expect(names(uploadColumns), f.name).toContain(f.name);
    expect(names(uploadOnlyColumns)).toEqual(names(uploadColumns).filter((n) => !names(storedUploadColumns).includes(n)));
    expect(names(uploadOnlyColumns)).toEqual(expect.arrayContaining(['EventID', 'WellID', 'SampleCondition', 'ActivityDepthAltitudeReferencePoint']));
  });

  it('a column that storage requires (NOT NULL) is one upstream requires, so no valid row breaks the constraint', () => {
    const required = new Set(upstreamColumns.filter((c) => c.required).map((c) => c.name));
    for (const f of storedUploadColumns.filter((f) => !f.nullable)) expect(required.has(f.name), f.name).toBe(true);
  });

  it.each(resources.map((r) => [r.name, r] as const))('%s: unique names, a key field, case-insensitively unique columns', (_n, resource) => {
    const fieldNames = names(resource.fields);
    expect(new Set(fieldNames).size).toBe(fieldNames.length);
    expect(fieldNames).toContain(resource.key);
    // DuckDB identifiers are case-insensitive: Locations' `ID` must not share a column with `Id`.
    const columns = resource.fields.map((f) => f.column.toLowerCase());
    expect(new Set(columns).size).toBe(columns.length);
    expect(getResource(resource.name)).toBe(resource);
  });

  it.each(resources.map((r) => [r.name, r] as const))('%s: every field column exists in its storage table', (_n, resource) => {
    const columns = columnsOf(resource.table);
    for (const f of resource.fields) expect(columns, `${resource.name}.${f.name}`).toContain(f.column);
  });

  it.each(resources.map((r) => [r.name, r] as const))('%s: every filterable name is unique and has a dimension with a column or a membership', (_n, resource) => {
    expect(new Set(resource.filterable).size).toBe(resource.filterable.length);
    for (const name of resource.filterable) {
      const dimension = getDimension(name, resource);
      expect(dimension, `${resource.name} filter ${name}`).toBeDefined();
      if (!dimension) continue;
      expect(dimension.membership !== undefined || Object.keys(dimension.columns).length > 0, name).toBe(true);
    }
  });

  it.each(resources.filter((r) => r.ownDimensions).map((r) => [r.name, r] as const))(
    '%s (a table of its own): each field filters under a dimension reading that field\'s own column',
    (_n, resource) => {
      for (const f of resource.fields.filter((f) => resource.filterable.includes(f.name))) {
        expect(getDimension(f.name, resource)?.columns[resource.table], `${resource.name}.${f.name}`).toBe(f.column);
      }
    },
  );

  it('every dimension column exists in that storage table', () => {
    for (const d of [...dimensions, ...resources.flatMap((r) => r.ownDimensions ?? [])]) {
      for (const [table, column] of Object.entries(d.columns) as [TableName, string][]) {
        expect(columnsOf(table), `${d.name} → ${table}.${column}`).toContain(column);
      }
      if (d.membership) expect(columnsOf(d.membership)).toEqual(expect.arrayContaining(['LocationId', d.name]));
    }
  });

  it('dimension names are unique and aliases point at dimensions', () => {
    const dimensionNames = dimensions.map((d) => d.name);
    expect(new Set(dimensionNames).size).toBe(dimensionNames.length);
    for (const [alias, target] of Object.entries(dimensionAliases)) {
      expect(dimensionNames, alias).toContain(target);
      expect(getDimension(alias)?.name).toBe(target);
    }
  });

  it('observation_stats holds exactly the observation-level dimensions', () => {
    const statsDims = dimensions.filter((d) => d.columns.observation_stats).map((d) => d.columns.observation_stats);
    expect(columnsOf('observation_stats')).toEqual(expect.arrayContaining(statsDims as string[]));
  });

  it('every vocabulary column is an upload column', () => {
    const upload = new Set(names(uploadColumns));
    for (const column of Object.keys(vocabularyOfColumn)) expect(upload.has(column), column).toBe(true);
  });

  it('Metadata fields: Id, DOI, DatasetName required; TemporalExtent a date pair', () => {
    const byName = new Map(metadataFields.map((f) => [f.name, f]));
    for (const n of ['Id', 'DOI', 'DatasetName']) expect(byName.get(n)?.nullable).toBe(false);
    expect(byName.get('TemporalExtent')?.type).toBe('date[]');
  });
});

describe('each resource\'s doors are declared in terms of its own fields and dimensions', () => {
  it.each(resources.filter((r) => r.apply !== 'none').map((r) => [r.name, r] as const))('%s: $apply groups by filterable dimensions, aggregates its number and date fields', (_n, r) => {
    if (r.apply === 'none') return;
    for (const g of r.apply.groupBy) {
      expect(r.filterable, `${r.name} groups by ${g}`).toContain(g);
      // Never a key, a coordinate or a measure (issue 56): a group per row is no aggregate.
      expect(['Id', 'ObservationId', 'Latitude', 'Longitude', ...r.apply.measures.map((m) => m.field)], `${r.name} groups by ${g}`).not.toContain(g);
    }
    for (const m of r.apply.measures) {
      expect(['number', 'integer', 'date'], `${r.name}.${m.field}`).toContain(r.fields.find((f) => f.name === m.field)?.type);
      if (m.unit) expect(r.filterable, `${r.name}.${m.field}'s unit`).toContain(m.unit);
    }
    for (const d of r.apply.distinct) expect(getDimension(d, r), `${r.name} counts ${d} distinctly`).toBeDefined();
    for (const s of r.apply.statistics) expect(r.apply.measures.map((m) => m.field)).toContain(s.measure);
  });

  it('OGC collection ids are unique, and their points and dates are filterable names of the collection', () => {
    const ids = resources.flatMap((r) => (r.ogc === 'none' ? [] : [r.ogc.id]));
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of resources) {
      if (r.ogc === 'none') continue;
      const names = [...r.filterable, ...(r.ogc.filterable ?? [])];
      for (const n of [r.ogc.point.latitude, r.ogc.point.longitude]) expect(names, `${r.ogc.id} ${n}`).toContain(n);
      if (r.ogc.datetime) expect(r.fields.map((f) => f.name)).toContain(r.ogc.datetime);
    }
  });

  it('a table of its own is kind own-table; the kinds of the others are their tables', () => {
    for (const r of resources) {
      if (r.kind === 'own-table') expect(ownTables as readonly string[]).toContain(r.table);
      else expect(r.table).toBe(r.kind);
    }
  });

  it('a citation credits datasets exactly where the rows have a DOI, guidelines by a field of the rows', () => {
    for (const r of resources) {
      expect(r.citation.datasets, r.name).toBe(columnsOf(r.table).includes('DOI'));
      const g = r.citation.guidelines;
      if (typeof g === 'object') expect(r.fields.map((f) => f.name)).toContain(g.column);
    }
  });
});
