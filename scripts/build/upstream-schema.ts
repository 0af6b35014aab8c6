/**
 * Regenerates `schemas/upstream/` from a checkout of the DataStream data schema (repository datastreamapp/schema,
 * MIT): the upload columns and their vocabularies, the ActivityType → ActivityGroupType lookup, and the conditional
 * rules (errors from the upload schema `primary.json`, warnings from `quality-control.json`), values only, with the
 * source commit recorded in `schemas/upstream/source.json`.
 *
 *   node --import tsx scripts/build/upstream-schema.ts <path of a datastreamapp/schema work tree> [out folder]
 *
 * A refresh is this one command followed by `make test`: `schemas/upstream/source.test.ts` pins the commit, so a new
 * one is a reviewed change, and the rule tests say which new rules our SQL compiler cannot express yet.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const root = resolve(process.argv[2] ?? '');
const out = resolve(process.argv[3] ?? join(import.meta.dirname, '..', '..', 'schemas', 'upstream'));
const src = join(root, 'schemas', 'data', 'src');

const read = (path: string): Schema => JSON.parse(readFileSync(join(src, path), 'utf8')) as Schema;
const write = (name: string, value: unknown) => writeFileSync(join(out, name), `${JSON.stringify(value, null, 2)}\n`);
const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();

const definitions = read('definitions.json').definitions as Record<string, Schema>;
const primary = read('primary.json');
const qualityControl = read('quality-control.json');

/** `./definitions.json#/definitions/X`, `../definitions.json#/…` or `#/definitions/X` → X. */
const definitionName = (ref: string) => /definitions\.json#\/definitions\/(.+)$|^#\/definitions\/(.+)$/.exec(ref)?.slice(1).find(Boolean);
/** `https://datastream.org/schema/data/values/X.primary.json` → X. */
const valuesName = (ref: string) => /\/values\/([^/]+)\.primary\.json$/.exec(ref)?.[1];

/**
 * Inlines our references (definitions, value lists) so each rule is self-contained data. References into the
 * WQX package (`https://epa.gov/wqx/…`, not in the repository) are kept as they are: the rule compiler refuses
 * them by name.
 */
function inline(node: Json): Json {
  if (Array.isArray(node)) return node.map(inline);
  if (node === null || typeof node !== 'object') return node;
  const ref = typeof node.$ref === 'string' ? node.$ref : null;
  const { $ref: _ref, errorMessage: _message, $comment: _comment, ...rest } = node;
  const body = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v)]));
  // A rule's own `#/$defs/…` stay as they are, resolved against the rule by the compiler.
  if (ref === null || ref.startsWith('https://epa.gov/') || ref.startsWith('#/$defs/')) return ref === null ? body : { $ref: ref, ...body };
  const values = valuesName(ref);
  const target = values ? read(`values/${values}.primary.json`) : definitions[definitionName(ref) ?? ''];
  if (!target) throw new Error(`unresolved reference ${ref}`);
  const { $id: _id, title: _title, description: _description, ...resolved } = inline(target) as Schema;
  return { ...resolved, ...body };
}

/** The upload columns, in the template's order, with the vocabulary (upstream value list) each one uses. */
const [shape, ...logicRefs] = primary.allOf as Schema[];
const properties = shape?.properties as Record<string, { $ref: string }>;
const columns = Object.entries(properties).map(([name, { $ref }]) => {
  const definition = definitions[definitionName($ref) ?? ''];
  const vocabulary = typeof definition?.$ref === 'string' ? valuesName(definition.$ref) : undefined;
  const required = (shape?.required as string[]).includes(name);
  return vocabulary ? { name, required, vocabulary } : { name, required, definition: inline(definition ?? null) };
});

const vocabularyNames = [...new Set(columns.flatMap((c) => (c.vocabulary ? [c.vocabulary] : [])))].sort();
const vocabularies = Object.fromEntries(vocabularyNames.map((name) => [name, read(`values/${name}.primary.json`).enum]));

function rulesOf(refs: readonly Schema[], severity: 'error' | 'warning') {
  return refs.map(({ $ref }) => {
    const path = String($ref).replace(/^\.\//, '');
    const { $id: _id, title, description, ...schema } = read(path);
    return { name: String(title), severity, source: path, description: String(description ?? ''), schema: inline(schema) };
  });
}
// The shape's `dependencies` (a measure needs its unit) are rules of the upload schema too: one per key.
const dependencyRules = Object.entries(shape?.dependencies as Record<string, string[]>).map(([column, needs]) => ({
  name: `dependencies-${column}`,
  severity: 'error' as const,
  source: 'primary.json#/allOf/0/dependencies',
  description: `${needs.join(', ')} ${needs.length > 1 ? 'are' : 'is'} required when ${column} is reported`,
  schema: { dependencies: { [column]: needs } },
}));
// quality-control.json's own first part narrows a few columns (e.g. the Canadian time zones): one warning each.
const [qcShape, ...qcRefs] = qualityControl.allOf as Schema[];
const qcColumnRules = Object.entries(qcShape?.properties as Record<string, Json>)
  .filter(([, schema]) => schema !== true)
  .map(([column, schema]) => ({
    name: `quality-control-${column}`,
    severity: 'warning' as const,
    source: `quality-control.json#/allOf/0/properties/${column}`,
    description: `${column} as quality control expects it`,
    schema: { properties: { [column]: inline(schema) } },
  }));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
write('columns.json', columns);
write('vocabularies.json', vocabularies);
write('activity-groups.json', {
  groups: read('values/ActivityGroupType.primary.json').enum,
  byActivityType: read('lookup/ActivityType-ActivityGroupType.json'),
});
write('rules.json', [...dependencyRules, ...rulesOf(logicRefs, 'error'), ...qcColumnRules, ...rulesOf(qcRefs, 'warning')]);
write('source.json', {
  repository: 'datastreamapp/schema',
  licence: 'MIT',
  commit: git('rev-parse', 'HEAD'),
  committed: git('log', '-1', '--format=%cs'),
  version: (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
  files: {
    'columns.json': 'schemas/data/src/primary.json (allOf[0]: properties, required) with schemas/data/src/definitions.json',
    'vocabularies.json': 'schemas/data/src/values/<Name>.primary.json (enum), for each column whose definition names one',
    'activity-groups.json': 'schemas/data/src/values/ActivityGroupType.primary.json and schemas/data/src/lookup/ActivityType-ActivityGroupType.json',
    'rules.json': 'schemas/data/src/primary.json (dependencies, allOf logic/*: errors) and schemas/data/src/quality-control.json (allOf: warnings)',
  },
});
process.stdout.write(`schemas/upstream: ${columns.length} columns, ${vocabularyNames.length} vocabularies, rules from ${git('rev-parse', '--short', 'HEAD')}\n`);
