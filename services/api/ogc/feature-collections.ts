/**
 * The collections OGC API – Features serves, each a view of an OData resource: the same fields, the same planner,
 * compiler and statistics. `observations` are Records (the upload schema's fields, the location's among them);
 * they filter by the location's coordinates as the Records name them (MonitoringLocationLatitude, …Longitude), which
 * is what their bbox becomes.
 */
import { getDimension, resources, type DimensionDef, type OgcDoor, type ResourceDef } from '../../../schemas/index.js';

export interface FeatureCollectionDef extends OgcDoor {
  /** What the planner plans the items against: the resource, with the collection's own filter names. */
  readonly resource: ResourceDef;
  /** The OData resource that serves the same rows (an `alternate` link, the docs). */
  readonly odataResource: ResourceDef;
}

/**
 * Every resource's OGC door (schemas/catalogue.ts), in the catalogue's order: a resource declared with a collection
 * is served here, with no list of our own.
 */
export const FEATURE_COLLECTIONS: readonly FeatureCollectionDef[] = resources.flatMap((r) => {
  if (r.ogc === 'none') return [];
  const extra = r.ogc.filterable ?? [];
  return [{ ...r.ogc, resource: extra.length ? { ...r, filterable: [...r.filterable, ...extra] } : r, odataResource: r }];
});

export function featureCollection(id: string): FeatureCollectionDef | undefined {
  return FEATURE_COLLECTIONS.find((c) => c.id === id);
}

/** The dimensions a collection filters by: its queryables and its field query parameters. */
export function queryableDimensions(collection: FeatureCollectionDef): DimensionDef[] {
  return collection.resource.filterable.map((name) => {
    const dim = getDimension(name, collection.resource);
    if (!dim) throw new Error(`no dimension ${name}`);
    return dim;
  });
}
