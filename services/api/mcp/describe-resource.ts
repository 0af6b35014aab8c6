/**
 * What `describe` says of a resource, read from the field catalogue (schemas/catalogue.ts): every resource the API
 * offers assistants (its `mcp` door), its fields and every door it declares, with no rule of our own, so a resource
 * registered there is described here, truthfully, the day it is served.
 */
import { filterNames, getDimension, resources, type FieldType, type ResourceDef } from '../../../schemas/index.js';

export interface FieldDescription {
  readonly name: string;
  readonly type: FieldType;
  readonly nullable: boolean;
  readonly description: string;
  /** `$filter` accepts it on this resource. */
  readonly filterable: boolean;
  /** Returned only when `select` names it. */
  readonly onRequest: boolean;
}

export interface ResourceDescription {
  readonly resource: string;
  readonly description: string;
  readonly key: string;
  readonly fields: readonly FieldDescription[];
  /** Names `$filter` accepts that are not fields of the resource (a finer resource's: "has such an observation"). */
  readonly filterOnly: readonly { readonly name: string; readonly type: FieldType; readonly description: string }[];
  /** Every name `$filter` accepts, aliases included. */
  readonly filterable: readonly string[];
  /** Whether `aggregate` and `list_values` ($apply) answer on it, and whether it has a whole-result export. */
  readonly aggregate: boolean;
  /** What `groupby` accepts, what methods aggregate, and what `countdistinct` counts besides those: its `apply` door. */
  readonly groupBy: readonly string[];
  readonly measures: readonly string[];
  readonly countDistinct: readonly string[];
  readonly export: boolean;
  /** Its OGC API – Features collection (GeoJSON for GIS clients), if it has one. */
  readonly ogcCollection: string | null;
  /** The formats of each dataset's bulk files of it (`/v1/downloads`). */
  readonly files: readonly string[];
}

/** The names of the resources offered to assistants, in the service document's order. */
export function resourceNames(): [string, ...string[]] {
  const names = resources.filter((r) => r.mcp).map((r) => r.name as string);
  if (!names.length) throw new Error('the catalogue declares no resource');
  return names as [string, ...string[]];
}

export function describeResource(resource: ResourceDef): ResourceDescription {
  const fieldNames = new Set(resource.fields.map((f) => f.name));
  const filterable = filterNames(resource);
  return {
    resource: resource.name,
    description: resource.description,
    key: resource.key,
    fields: resource.fields
      .filter((f) => f.selectable)
      .map((f) => ({ name: f.name, type: f.type, nullable: f.nullable, description: f.description, filterable: resource.filterable.includes(f.name), onRequest: f.onRequest === true })),
    filterOnly: resource.filterable
      .filter((name) => !fieldNames.has(name))
      .flatMap((name) => {
        const d = getDimension(name);
        return d ? [{ name: d.name, type: d.type, description: d.description }] : [];
      }),
    filterable,
    aggregate: resource.apply !== 'none',
    groupBy: resource.apply === 'none' ? [] : resource.apply.groupBy,
    measures: resource.apply === 'none' ? [] : resource.apply.measures.map((m) => m.field),
    countDistinct: resource.apply === 'none' ? [] : resource.apply.distinct,
    export: resource.export,
    ogcCollection: resource.ogc === 'none' ? null : resource.ogc.id,
    files: resource.files,
  };
}
