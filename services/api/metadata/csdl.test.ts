/**
 * `$metadata` against the OASIS CSDL XML schemas (a real XML Schema validator: libxml2's xmllint) and read back
 * by an independent OData client (Apache Olingo's odatajs), compared with the catalogue it was generated from.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import odatajs from 'ts-odatajs';
import { describe, expect, it } from 'vitest';
import { filterNames, nullOnWire, resources } from '../../../schemas/index.js';
import { FORMAT_NAMES, FORMATS } from '../formats.js';
import { buildCsdl, CSDL_NAMESPACE, edmType, filterOnlyNames } from './csdl.js';
import { escapeXml } from './xml.js';

/**
 * testdata/edmx.xsd imports `edm.xsd` by a relative schemaLocation, so xmllint resolves it to the sibling copy
 * (copied unchanged from the OASIS odata-csdl-schemas repository; licence in testdata/LICENSE-oasis-csdl.md).
 * `--nonet` makes sure nothing is fetched: a missing file fails instead of silently downloading.
 */
const EDMX_XSD = join(import.meta.dirname, 'testdata', 'edmx.xsd');

function xmllint(xml: string): { ok: boolean; output: string } {
  try {
    const out = execFileSync('xmllint', ['--noout', '--nonet', '--schema', EDMX_XSD, '-'], { input: xml, stdio: 'pipe' });
    return { ok: true, output: out.toString() };
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return { ok: false, output: e.stderr?.toString() ?? e.message };
  }
}

interface Annotation { term: string; string?: string; bool?: string; record?: { propertyValue?: { property: string; bool?: string; collection?: { propertyPath?: { text: string }[] } }[] } }
interface ParsedProperty { name: string; type: string; nullable?: string }
interface ParsedEntityType { name: string; key: { propertyRef: { name: string }[] }; property: ParsedProperty[] }
interface ParsedEntitySet { name: string; entityType: string; annotation: Annotation[] }

const csdl = buildCsdl();
const parsed = odatajs.oData.parseMetadata(csdl) as {
  version: string;
  dataServices: { schema: { namespace: string; entityType: ParsedEntityType[]; entityContainer: { entitySet: ParsedEntitySet[] } }[] };
};
const schema = parsed.dataServices.schema[0]!;

describe('$metadata document', () => {
  it('is valid against the OASIS edmx.xsd/edm.xsd', () => {
    const result = xmllint(csdl);
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  });

  it('the validator rejects what the schema forbids (so the check above is not vacuous)', () => {
    expect(xmllint(csdl.replace('<Key>', '<Kee>').replace('</Key>', '</Kee>')).ok).toBe(false);
    expect(xmllint(csdl.replace('Version="4.0"', 'Version="3.0"')).ok).toBe(false);
  });

  it('declares OData 4.0 and one schema with every resource as an entity set of its entity type', () => {
    expect(parsed.version).toBe('4.0');
    expect(schema.namespace).toBe(CSDL_NAMESPACE);
    expect(schema.entityContainer.entitySet.map((s) => [s.name, s.entityType])).toEqual(
      resources.map((r) => [r.name, `${CSDL_NAMESPACE}.${r.entityType}`]),
    );
  });

  it.each(resources.map((r) => [r.name, r] as const))('%s: key Id, every field with its EDM type and nullability', (_, resource) => {
    const type = schema.entityType.find((t) => t.name === resource.entityType)!;
    expect(type.key.propertyRef).toEqual([{ name: 'Id' }]);
    expect(type.property.map((p) => p.name)).toEqual(resource.fields.map((f) => f.name));
    for (const field of resource.fields) {
      const p = type.property.find((q) => q.name === field.name)!;
      expect(p.type).toBe(edmType(field.type));
      if (!p.type.startsWith('Collection(')) expect(p.nullable).toBe(String(nullOnWire(field)));
    }
  });

  it('maps logical types as the contract says', () => {
    expect(['uuid', 'string', 'integer', 'number', 'date', 'time', 'timestamp', 'string[]', 'date[]', 'integer[]'].map((t) => edmType(t as never))).toEqual([
      'Edm.Guid', 'Edm.String', 'Edm.Int64', 'Edm.Double', 'Edm.Date', 'Edm.TimeOfDay', 'Edm.DateTimeOffset', 'Collection(Edm.String)', 'Collection(Edm.Date)', 'Collection(Edm.Int64)',
    ]);
  });

  it.each(resources.map((r) => [r.name, r] as const))('%s: capabilities say what the API does', (_, resource) => {
    const set = schema.entityContainer.entitySet.find((s) => s.name === resource.name)!;
    const term = (t: string) => set.annotation.find((a) => a.term === t);
    expect(term('Capabilities.TopSupported')?.bool).toBe('true');
    expect(term('Capabilities.SkipSupported')?.bool).toBe('false');
    expect(term('Capabilities.IndexableByKey')?.bool).toBe('false');
    const value = (t: string, p: string) => term(t)?.record?.propertyValue?.find((v) => v.property === p);
    expect(value('Capabilities.CountRestrictions', 'Countable')?.bool).toBe('true');
    expect(value('Capabilities.SelectSupport', 'Supported')?.bool).toBe('true');
    expect(value('Capabilities.SortRestrictions', 'Sortable')?.bool).toBe('false');
    expect(value('Capabilities.FilterRestrictions', 'RequiresFilter')?.bool).toBe('false');
    // Non-filterable = every property the planner refuses in $filter.
    const nonFilterable = (value('Capabilities.FilterRestrictions', 'NonFilterableProperties')?.collection?.propertyPath ?? []).map((p) => p.text);
    expect(nonFilterable).toEqual(resource.fields.filter((f) => !resource.filterable.includes(f.name)).map((f) => f.name));
    // Filter-only names (RegionId, coarse-by-fine fields) are documented, not passed off as properties.
    const long = term('Core.LongDescription')?.string ?? '';
    for (const name of filterNames(resource)) expect(long).toContain(name);
    for (const name of filterOnlyNames(resource)) expect(resource.fields.some((f) => f.name === name)).toBe(false);
  });

  it('offers every format of the format table, by media type, on the container', () => {
    const compact = csdl.replace(/>\s+</g, '><').replace(/>\s+/g, '>').replace(/\s+</g, '<');
    const formats = /<Annotation Term="Capabilities.SupportedFormats"><Collection>(.*?)<\/Collection>/.exec(compact)?.[1];
    expect(formats).toBe(FORMAT_NAMES.map((f) => `<String>${escapeXml(FORMATS[f].mediaType)}</String>`).join(''));
  });

  it('links the bulk downloads (rel alternate) and the DCAT catalogue (rel describedby) from the container (Core.Links)', () => {
    const compact = csdl.replace(/>\s+</g, '><').replace(/>\s+/g, '>').replace(/\s+</g, '<');
    expect(compact).toContain(
      '<Annotation Term="Core.Links"><Collection><Record Type="Core.Link"><PropertyValue Property="rel" String="alternate"/><PropertyValue Property="href" String="/v1/downloads"/></Record>' +
        '<Record Type="Core.Link"><PropertyValue Property="rel" String="describedby"/><PropertyValue Property="href" String="/catalogue"/></Record></Collection></Annotation>',
    );
  });

  it('lists RegionId and CharacteristicName on Locations as filter-only names', () => {
    const locations = resources.find((r) => r.name === 'Locations')!;
    expect(filterOnlyNames(locations)).toEqual(expect.arrayContaining(['RegionId', 'CharacteristicName', 'ActivityStartYear', 'ActivityGroupType']));
  });

  it('declares $apply where a resource declares it, with the custom aggregation methods and what groups and aggregates (Aggregation vocabulary)', () => {
    type Values = { property: string; collection?: { string?: { text: string }[]; propertyPath?: { text: string }[] } }[];
    const declared = new Map(resources.map((r) => [r.name as string, r]));
    for (const set of schema.entityContainer.entitySet) {
      const apply = set.annotation.find((a) => a.term === 'Aggregation.ApplySupported') as { record: { propertyValue: Values } } | undefined;
      if (declared.get(set.name)!.apply === 'none') {
        expect(apply, set.name).toBeUndefined();
        continue;
      }
      const value = (name: string) => apply!.record.propertyValue.find((v) => v.property === name)?.collection;
      const paths = (name: string) => value(name)?.propertyPath?.map((s) => s.text);
      expect(value('Transformations')?.string?.map((s) => s.text)).toEqual(['filter', 'groupby', 'aggregate', 'orderby', 'top']);
      // The km methods where they read the detection limits: on the observations.
      const km = ['Tributary.km_median', 'Tributary.km_p10', 'Tributary.km_p90', 'Tributary.km_mean', 'Tributary.km_median_qualifier', 'Tributary.km_p10_qualifier', 'Tributary.km_p90_qualifier', 'Tributary.km_method'];
      const observations = set.name === 'Observations' || set.name === 'Records';
      expect(value('CustomAggregationMethods')?.string?.map((s) => s.text)).toEqual(['Tributary.median', 'Tributary.p10', 'Tributary.p90', 'Tributary.countnull', ...(observations ? km : [])]);
      // No key, measure, coordinate or free text is groupable (issue 56): each group would be nearly a row.
      // (A trend's Reason is one of three fixed phrases, a category; a comparison's is free text.)
      const never = ['Id', 'ObservationId', 'ResultValue', 'Latitude', 'Longitude', 'Inputs', 'Expression', ...(set.name === 'Trends' ? [] : ['Reason'])];
      for (const name of never) expect(paths('GroupableProperties'), `${set.name} ${name}`).not.toContain(name);
      if (set.name === 'GuidelineComparisons') {
        expect(paths('AggregatableProperties')).toEqual(['ResultValue', 'GuidelineLower', 'GuidelineUpper', 'ActivityStartDate', 'ObservationId', 'GuidelineId', 'DOI', 'LocationId', 'CharacteristicName', 'ActivityStartYear']);
        expect(paths('GroupableProperties')).toEqual(expect.arrayContaining(['LocationId', 'GuidelineId', 'Verdict', 'CharacteristicName']));
      }
      if (set.name === 'WaterQualityIndex') expect(paths('AggregatableProperties')).toEqual(expect.arrayContaining(['WQI', 'F1', 'F2', 'F3']));
      if (set.name !== 'Observations' && set.name !== 'Records') continue;
      // The measures, then what countdistinct counts that is a property of the entity (ActivityStartYear is filter-only).
      const distinct = set.name === 'Observations' ? ['LocationId', 'DOI', 'CharacteristicName', 'ActivityMediaName', 'ResultUnit'] : ['DOI', 'CharacteristicName', 'ActivityMediaName', 'MonitoringLocationType', 'ResultUnit'];
      expect(paths('AggregatableProperties')).toEqual(['ResultValue', 'ResultDetectionQuantitationLimitMeasure', 'ActivityDepthHeightMeasure', 'ActivityStartDate', ...distinct]);
      expect(paths('GroupableProperties')).toEqual(expect.arrayContaining(['CharacteristicName', 'ResultUnit', 'DOI']));
    }
    // The percentile's definition is stated where a client reading $metadata finds it.
    expect(csdl).toContain('Hyndman &amp; Fan type 7');
  });
});

describe('escapeXml', () => {
  it.each([
    [`a<b>&"c'`, 'a&lt;b&gt;&amp;&quot;c&apos;'],
    ['bell\u0007 and nul\u0000 dropped, tab\tkept', 'bell and nul dropped, tab\tkept'],
    [']]><!--', ']]&gt;&lt;!--'],
  ])('%j → %j', (input, out) => {
    expect(escapeXml(input)).toBe(out);
  });
});
