/**
 * `$metadata`: the CSDL XML (OData 4.0) document, generated from the field catalogue so a generic OData client
 * (Excel, Power BI, Olingo, pyodata…) discovers the four entity sets, their keys, property types and what the
 * service can and cannot do. The Capabilities annotations matter: without them a generic client assumes
 * `$orderby`, `$skip`, `$expand` and key lookups work and builds requests this API answers with 400.
 */
import {
  filterNames,
  getDimension,
  nullOnWire,
  resources,
  type FieldDef,
  type ApplyDoor,
  type FieldType,
  type ResourceDef,
} from '../../../schemas/index.js';
import { FORMAT_NAMES, FORMATS } from '../formats.js';
import { measuresOf, METHODS } from '../query/measures.js';
import { APPLY_LIMITS, DEFAULT_MAX_APPLY_GROUPS } from '../query/apply-limits.js';
import { assertNever } from '../assert-never.js';
import { AGGREGATE_METHODS } from '../odata/index.js';
import { PATHS } from '../http/paths.js';
import { el, renderXml, type XmlNode } from './xml.js';

/** Schema namespace; entity types are `Tributary.Observation` etc. */
export const CSDL_NAMESPACE = 'Tributary';
export const CSDL_CONTAINER = 'Container';

const EDM_TYPES: Readonly<Record<FieldType, string>> = {
  uuid: 'Edm.Guid',
  string: 'Edm.String',
  integer: 'Edm.Int64',
  number: 'Edm.Double',
  boolean: 'Edm.Boolean',
  date: 'Edm.Date',
  time: 'Edm.TimeOfDay',
  timestamp: 'Edm.DateTimeOffset',
  'string[]': 'Collection(Edm.String)',
  'date[]': 'Collection(Edm.Date)',
  'integer[]': 'Collection(Edm.Int64)',
};

export function edmType(type: FieldType): string {
  return EDM_TYPES[type];
}

/** The standard vocabularies, referenced (not inlined) as OData 4.0 §3.3 allows. */
const VOCABULARIES = [
  { namespace: 'Org.OData.Core.V1', alias: 'Core' },
  { namespace: 'Org.OData.Capabilities.V1', alias: 'Capabilities' },
  { namespace: 'Org.OData.Aggregation.V1', alias: 'Aggregation' },
] as const;

const bool = (value: boolean) => (value ? 'true' : 'false');
const annotation = (term: string, attrs: Record<string, string>, children: XmlNode[] = []) => el('Annotation', { Term: term, ...attrs }, children);
const description = (text: string, term = 'Core.Description') => annotation(term, { String: text });
const record = (type: string, values: XmlNode[]) => el('Record', { Type: type }, values);
const boolValue = (property: string, value: boolean) => el('PropertyValue', { Property: property, Bool: bool(value) });
const pathCollection = (property: string, paths: readonly string[]) =>
  el('PropertyValue', { Property: property }, [el('Collection', {}, paths.map((p) => el('PropertyPath', {}, [p])))]);

/** Builds the whole `$metadata` document. Pure: the same catalogue gives the same bytes. */
export function buildCsdl(): string {
  const doc = el('edmx:Edmx', { 'xmlns:edmx': 'http://docs.oasis-open.org/odata/ns/edmx', Version: '4.0' }, [
    ...VOCABULARIES.map((v) =>
      el('edmx:Reference', { Uri: `https://oasis-tcs.github.io/odata-vocabularies/vocabularies/${v.namespace}.xml` }, [
        el('edmx:Include', { Namespace: v.namespace, Alias: v.alias }),
      ]),
    ),
    el('edmx:DataServices', {}, [
      el('Schema', { xmlns: 'http://docs.oasis-open.org/odata/ns/edm', Namespace: CSDL_NAMESPACE }, [
        ...resources.map(entityType),
        el('EntityContainer', { Name: CSDL_CONTAINER }, [
          description('Tributary: open water-quality monitoring data in the DataStream schema. Read-only; cite each dataset by its DOI (Metadata.Citation, Metadata.Licence).'),
          annotation('Capabilities.ConformanceLevel', { EnumMember: 'Capabilities.ConformanceLevelType/Minimal' }),
          annotation('Capabilities.SupportedFormats', {}, [el('Collection', {}, FORMAT_NAMES.map((f) => el('String', {}, [FORMATS[f].mediaType])))]),
          // Core vocabulary's links: the same data whole, as each dataset's files (downloads/downloads.ts), and the DCAT
          // catalogue that describes every dataset (pages/register-pages.ts).
          annotation('Core.Links', {}, [el('Collection', {}, [
            record('Core.Link', [el('PropertyValue', { Property: 'rel', String: 'alternate' }), el('PropertyValue', { Property: 'href', String: PATHS.downloads })]),
            record('Core.Link', [el('PropertyValue', { Property: 'rel', String: 'describedby' }), el('PropertyValue', { Property: 'href', String: PATHS.catalogue })]),
          ])]),
          ...resources.map(entitySet),
        ]),
      ]),
    ]),
  ]);
  return `<?xml version="1.0" encoding="utf-8"?>\n${renderXml(doc)}\n`;
}

function entityType(resource: ResourceDef): XmlNode {
  return el('EntityType', { Name: resource.entityType }, [
    el('Key', {}, [el('PropertyRef', { Name: resource.key })]),
    ...resource.fields.map(property),
    description(resource.description),
  ]);
}

function property(field: FieldDef): XmlNode {
  const type = edmType(field.type);
  // On a collection, Nullable speaks of its items (CSDL 4.0 §6.2.1), which are never null here; a missing
  // list is served as null, which the description says.
  const collection = type.startsWith('Collection(');
  return el(
    'Property',
    {
      Name: field.name,
      Type: type,
      Nullable: collection ? 'false' : bool(nullOnWire(field)),
      Precision: field.type === 'timestamp' ? '3' : undefined,
    },
    [description(collection && field.nullable ? `${field.description} Null when absent.` : field.description)],
  );
}

/** Filter names that are not properties of the entity: documented, since no PropertyPath can name them. */
export function filterOnlyNames(resource: ResourceDef): string[] {
  return filterNames(resource).filter((name) => !resource.fields.some((f) => f.name === name));
}

function filterOnlyText(resource: ResourceDef): string {
  const names = filterOnlyNames(resource).map((name) => {
    const dim = getDimension(name, resource);
    return `${name}${dim && dim.name !== name ? ` (alias of ${dim.name})` : ''}: ${dim?.description ?? ''}`;
  });
  return names.length === 0 ? '' : ` $filter also accepts names that are not properties of ${resource.entityType}. ${names.join(' ')}${filterOnlyMeaning(resource)}`;
}

/** What a filter name that is not a property means on a resource of this kind. */
export function filterOnlyMeaning(resource: ResourceDef): string {
  switch (resource.kind) {
    case 'observations':
      return '';
    case 'own-table':
      return " Those are the row's location's.";
    case 'locations':
    case 'datasets':
      return ' A filter on an observation-level name selects rows with at least one matching observation.';
    default:
      return assertNever(resource);
  }
}

const CUSTOM_METHODS = AGGREGATE_METHODS.filter((m) => m.startsWith(`${CSDL_NAMESPACE}.`));
/** The custom methods a resource's `$apply` takes: the km methods read the observations' detection limits (plan-apply.ts). */
const customMethodsOf = (resource: ResourceDef) => CUSTOM_METHODS.filter((m) => METHODS[m].only === undefined || resource.kind === 'observations');

/** What `$apply` accepts on a resource (its `apply` door), with each custom method's definition (no CSDL element can describe a method). */
function applyText(resource: ResourceDef, door: ApplyDoor): string {
  const measures = measuresOf(resource);
  const units = measures.flatMap((m) => m.unit ?? []);
  return (
    `$apply=[filter(…)/]groupby((F1,…)[,aggregate(…)])[/orderby(Column [desc],…)][/top(n)] or [filter(…)/]aggregate(…), groups by ${door.groupBy.join(', ')} ` +
    `(at most ${APPLY_LIMITS.maxGroupingFields} at once); ` +
    `aggregate($count as Alias, Field with method as Alias, …) aggregates ${measures.map((m) => m.name).join(', ') || 'nothing but $count'} with ` +
    `${(Object.keys(METHODS) as (keyof typeof METHODS)[]).filter((m) => METHODS[m].only === undefined || resource.kind === 'observations').map((m) => `${m} (${METHODS[m].description})`).join(', ')}` +
    `${door.distinct.length ? `; countdistinct also counts ${door.distinct.join(', ')}` : ''}; at most ${APPLY_LIMITS.maxHolisticAggregates} holistic aggregates (medians, percentiles, countdistinct) per request; one estimated to make more groups than MAX_APPLY_GROUPS (${DEFAULT_MAX_APPLY_GROUPS} by default) is refused.` +
    (units.length ? ` Values in different units are never aggregated together: group by the unit (${[...new Set(units)].join(', ')}) or filter to one.` : '')
  );
}

function entitySet(resource: ResourceDef): XmlNode {
  const filterable = resource.fields.filter((f) => resource.filterable.includes(f.name)).map((f) => f.name);
  const nonFilterable = resource.fields.filter((f) => !filterable.includes(f.name)).map((f) => f.name);
  const door = resource.apply === 'none' ? undefined : resource.apply;
  return el('EntitySet', { Name: resource.name, EntityType: `${CSDL_NAMESPACE}.${resource.entityType}` }, [
    description(resource.description),
    description(
      `Results come in Id order, at most $top rows a page; follow @odata.nextLink (also in the Link header). ` +
        `Filterable: ${filterNames(resource).join(', ')}.${filterOnlyText(resource)}` +
        (door ? ` ${applyText(resource, door)}` : ''),
      'Core.LongDescription',
    ),
    annotation('Capabilities.FilterRestrictions', {}, [
      record('Capabilities.FilterRestrictionsType', [
        boolValue('Filterable', true),
        boolValue('RequiresFilter', false),
        pathCollection('NonFilterableProperties', nonFilterable),
      ]),
    ]),
    annotation('Capabilities.SelectSupport', {}, [
      record('Capabilities.SelectSupportType', [
        boolValue('Supported', true),
        ...['InstanceAnnotationsSupported', 'Expandable', 'Filterable', 'Searchable', 'TopSupported', 'SkipSupported', 'ComputeSupported', 'Countable', 'Sortable'].map((p) => boolValue(p, false)),
      ]),
    ]),
    annotation('Capabilities.TopSupported', { Bool: 'true' }),
    annotation('Capabilities.SkipSupported', { Bool: 'false' }),
    annotation('Capabilities.CountRestrictions', {}, [record('Capabilities.CountRestrictionsType', [boolValue('Countable', true)])]),
    annotation('Capabilities.SortRestrictions', {}, [record('Capabilities.SortRestrictionsType', [boolValue('Sortable', false)])]),
    annotation('Capabilities.ExpandRestrictions', {}, [record('Capabilities.ExpandRestrictionsType', [boolValue('Expandable', false)])]),
    annotation('Capabilities.SearchRestrictions', {}, [record('Capabilities.SearchRestrictionsType', [boolValue('Searchable', false)])]),
    annotation('Capabilities.IndexableByKey', { Bool: 'false' }),
    annotation('Capabilities.InsertRestrictions', {}, [record('Capabilities.InsertRestrictionsType', [boolValue('Insertable', false)])]),
    annotation('Capabilities.UpdateRestrictions', {}, [record('Capabilities.UpdateRestrictionsType', [boolValue('Updatable', false)])]),
    annotation('Capabilities.DeleteRestrictions', {}, [record('Capabilities.DeleteRestrictionsType', [boolValue('Deletable', false)])]),
    ...(door ? [applySupported(resource, door)] : []),
  ]);
}

/**
 * Data Aggregation's ApplySupported (§6.2.1): the transformations offered, the custom methods (§3.1.3: a custom
 * method is named by its namespace-qualified name and listed here), and only these groupable and aggregatable
 * properties (PropertyRestrictions is implied); names a property path cannot reach are in the text above.
 */
function applySupported(resource: ResourceDef, door: ApplyDoor): XmlNode {
  const properties = (names: readonly string[]) => names.filter((n) => resource.fields.some((f) => f.name === n));
  return annotation('Aggregation.ApplySupported', {}, [
    record('Aggregation.ApplySupportedType', [
      el('PropertyValue', { Property: 'Transformations' }, [el('Collection', {}, ['filter', 'groupby', 'aggregate', 'orderby', 'top'].map((t) => el('String', {}, [t])))]),
      el('PropertyValue', { Property: 'CustomAggregationMethods' }, [el('Collection', {}, customMethodsOf(resource).map((m) => el('String', {}, [m])))]),
      el('PropertyValue', { Property: 'Rollup', EnumMember: 'Aggregation.RollupType/None' }),
      pathCollection('GroupableProperties', properties(door.groupBy)),
      pathCollection('AggregatableProperties', properties([...new Set([...measuresOf(resource).map((m) => m.name), ...door.distinct])])),
    ]),
  ]);
}
