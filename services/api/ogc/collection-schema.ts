/**
 * What each collection's features hold, typed, as JSON Schema (issue 53 item 3), so a GIS client reads numbers as
 * numbers and dates as dates even when the first page it samples has only nulls in a field:
 *
 * - the logical schema of OGC API – Features Part 5 (`/collections/{id}/schema`, link relation
 *   `http://www.opengis.net/def/rel/ogc/1.0/schema`): the feature's properties flat, each with its `type` and
 *   `format`, its order (`x-ogc-propertySeq`) and role (`x-ogc-role`: `id`, `primary-geometry`, `primary-instant`), as
 *   QGIS's OAPIF provider reads it from 3.44 on;
 * - the schema of a GeoJSON Feature (`/collections/{id}/schema/geojson`, `rel="describedby"`,
 *   `application/schema+json`): the same properties under the Feature's `properties` member, as GDAL's OAPIF driver
 *   reads it (GDAL 3.6 through 3.12; R sf and geopandas through it): it types a field by the `type` of its schema
 *   (`integer`, `number`, `boolean`, a `string` of `format` `date` or `date-time`), a single type, never a list.
 *
 * GDAL types `integer` as a 32-bit field whatever the values, and clips a larger value to 2^31 − 1: a key that
 * outgrows 32 bits (the sparse Ids of the tables of their own, e.g. ObservationId × 4096 + GuidelineId on a hub of a
 * million observations) is a `number` in GDAL's schema, exact to 2^53. Values may be null wherever the field's
 * description says so: these are the types of the values present, as Part 5's logical schema describes them.
 */
import type { FieldDef, FieldType } from '../../../schemas/index.js';
import type { FeatureCollectionDef } from './feature-collections.js';
import { collectionUrl } from './feature-links.js';
import { fieldValueSchema } from './queryables.js';

type JsonSchema = Readonly<Record<string, unknown>>;

/** What a collection's schemas describe: its features' properties, its key, its geometry and its date. */
export interface SchemaSubject {
  readonly id: string;
  readonly title: string;
  readonly url: string;
  readonly fields: readonly Pick<FieldDef, 'name' | 'type' | 'description'>[];
  /** The property that is also the feature's `id`. */
  readonly key: string;
  /** Whether the key can outgrow a 32-bit integer (GDAL would clip it: a number in GDAL's schema). */
  readonly wideKey: boolean;
  readonly geometry: 'geometry-point' | 'geometry-polygon-or-multipolygon';
  /** The date `datetime` filters on, its primary instant. */
  readonly instant?: string;
}

const JSON_SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

/** A collection of the catalogue: the properties its items carry by default (`properties=` selects fewer). */
export function collectionSubject(base: string, collection: FeatureCollectionDef, datetime: string): SchemaSubject {
  const r = collection.resource;
  return {
    id: collection.id,
    title: collection.title,
    url: collectionUrl(base, collection),
    fields: r.fields.filter((f) => f.selectable && !f.onRequest),
    key: r.key,
    wideKey: r.pages.ids === 'sparse',
    geometry: 'geometry-point',
    instant: collection.datetime ?? datetime,
  };
}

/** Part 5's logical schema: the feature's properties, its geometry among them. */
export function logicalSchema(s: SchemaSubject): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  s.fields.forEach((f, i) => {
    properties[f.name] = { ...property(f), 'x-ogc-propertySeq': i + 1, ...role(s, f.name) };
  });
  properties['geometry'] = { title: 'geometry', format: s.geometry, 'x-ogc-role': 'primary-geometry', 'x-ogc-propertySeq': s.fields.length + 1 };
  return { $schema: JSON_SCHEMA, $id: `${s.url}/schema`, type: 'object', title: s.title, description: `The properties of the ${s.id} features, with their types.`, properties };
}

/** A GeoJSON Feature of the collection (RFC 7946), its properties typed. */
export function geojsonSchema(s: SchemaSubject): JsonSchema {
  const key = s.fields.find((f) => f.name === s.key);
  const typed = (f: Pick<FieldDef, 'name' | 'type' | 'description'>) =>
    s.wideKey && f.name === s.key ? { ...property(f), type: 'number', description: `${f.description} A whole number that may exceed 32 bits.` } : property(f);
  return {
    $schema: JSON_SCHEMA,
    $id: `${s.url}/schema/geojson`,
    title: `${s.title}: a GeoJSON Feature`,
    description: `A feature of ${s.id} as its items carry it.`,
    type: 'object',
    required: ['type', 'geometry', 'properties'],
    properties: {
      type: { type: 'string', enum: ['Feature'] },
      ...(key ? { id: key.type === 'integer' ? { type: 'integer' } : fieldValueSchema(key.type) } : {}),
      geometry: { type: 'object', description: s.geometry === 'geometry-point' ? 'A Point, [longitude, latitude] in WGS 84.' : 'A Polygon or MultiPolygon in WGS 84.' },
      properties: { type: 'object', properties: Object.fromEntries(s.fields.map((f) => [f.name, typed(f)])) },
    },
  };
}

function property(f: Pick<FieldDef, 'name' | 'type' | 'description'>): JsonSchema {
  return { title: f.name, description: f.description, ...fieldValueSchema(f.type) };
}

function role(s: SchemaSubject, name: string): JsonSchema {
  if (name === s.key) return { 'x-ogc-role': 'id' };
  if (name === s.instant) return { 'x-ogc-role': 'primary-instant' };
  return {};
}

/** The regions of REGIONS_FILE: three text properties and an outline. */
export function regionsSubject(url: string): SchemaSubject {
  const text = (name: string, description: string) => ({ name, type: 'string' as FieldType, description });
  return {
    id: 'regions',
    title: 'Regions',
    url,
    fields: [text('RegionId', "The region's Id, as RegionId eq '<id>' filters the data by it."), text('name', "The region's name in its source."), text('set', 'The set it belongs to (huc8, huc10, hub, …).')],
    key: 'RegionId',
    wideKey: false,
    geometry: 'geometry-polygon-or-multipolygon',
  };
}
