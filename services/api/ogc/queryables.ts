/**
 * OGC API – Features Part 3's queryables of a collection: a JSON Schema of the fields it filters by, derived from
 * the catalogue's dimensions (schemas/dimensions.ts), each also a query parameter of its items (`CharacteristicName=pH`).
 */
import type { DimensionDef, FieldType } from '../../../schemas/index.js';
import { queryableDimensions, type FeatureCollectionDef } from './feature-collections.js';
import { collectionUrl } from './feature-links.js';

type JsonSchema = Readonly<Record<string, unknown>>;

/** JSON Schema of a field's or dimension's values, by its type. */
const SCHEMA_OF: { readonly [T in FieldType]: JsonSchema } = {
  uuid: { type: 'string', format: 'uuid' },
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  // A time of day as uploaded, with no offset: JSON Schema's format time is RFC 3339's, which requires one.
  time: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$' },
  timestamp: { type: 'string', format: 'date-time' },
  'string[]': { type: 'array', items: { type: 'string' } },
  'date[]': { type: 'array', items: { type: 'string', format: 'date' } },
  'integer[]': { type: 'array', items: { type: 'integer' } },
};

/** JSON Schema of a field's values by its type: queryables, and the collections' schemas (collection-schema.ts). */
export function fieldValueSchema(type: FieldType): JsonSchema {
  return SCHEMA_OF[type];
}

export function queryableSchema(dim: DimensionDef): JsonSchema {
  return { title: dim.name, description: dim.description, ...SCHEMA_OF[dim.type] };
}

/**
 * @example
 * queryables('https://api.example.org', featureCollection('locations')!).properties.CharacteristicName
 * // → { title: 'CharacteristicName', description: 'What was measured, e.g. pH.', type: 'string' }
 */
export function queryables(base: string, collection: FeatureCollectionDef) {
  const properties: Record<string, JsonSchema> = {
    geometry: { title: 'geometry', description: "The point of the feature (a location's coordinates, WGS 84): what bbox filters by.", format: 'geometry-point', 'x-ogc-role': 'primary-geometry' },
  };
  for (const dim of queryableDimensions(collection)) properties[dim.name] = queryableSchema(dim);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${collectionUrl(base, collection)}/queryables`,
    type: 'object',
    title: collection.title,
    description: `The fields ${collection.id} can be filtered by, each also an items query parameter (e.g. CharacteristicName=pH).`,
    properties,
    additionalProperties: false,
  };
}
