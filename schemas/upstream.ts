import activityGroups from './upstream/activity-groups.json' with { type: 'json' };
import columns from './upstream/columns.json' with { type: 'json' };
import rules from './upstream/rules.json' with { type: 'json' };
import source from './upstream/source.json' with { type: 'json' };
import vocabularyValues from './upstream/vocabularies.json' with { type: 'json' };

/**
 * The DataStream data schema as upstream publishes it (datastreamapp/schema, `source.commit`), as data that
 * `scripts/build/upstream-schema.ts` regenerates: never edit `schemas/upstream/*.json` by hand.
 */
export const upstreamSource: Readonly<typeof source> = source;

/** A JSON Schema fragment of upstream's (see ingest/rule-sql.ts for the part our compiler understands). */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

export interface UpstreamColumn {
  readonly name: string;
  /** In upstream's `required` list: the column must be non-empty on every row. */
  readonly required: boolean;
  /** The upstream value list this column's values must belong to. */
  readonly vocabulary?: VocabularyName;
  /** The column's own definition when it has no value list (type, pattern, length, range). */
  readonly definition?: JsonSchema;
}

/** Every column of the upload template, in the template's order. */
export const upstreamColumns: readonly UpstreamColumn[] = columns as readonly UpstreamColumn[];

export type VocabularyName = keyof typeof vocabularyValues;

export const upstreamVocabularies: Readonly<Record<VocabularyName, readonly string[]>> = vocabularyValues;

export interface UpstreamActivityGroups {
  readonly groups: readonly string[];
  readonly byActivityType: Readonly<Record<string, string>>;
}

export const upstreamActivityGroups: UpstreamActivityGroups = activityGroups;

/**
 * One conditional rule: errors come from the upload schema (`primary.json`: its `dependencies` and `logic/*`),
 * warnings from `quality-control.json`. `schema` is the rule's JSON Schema with upstream's references inlined.
 */
export interface UpstreamRule {
  readonly name: string;
  readonly severity: 'error' | 'warning';
  readonly source: string;
  readonly description: string;
  readonly schema: JsonSchema;
}

export const upstreamRules: readonly UpstreamRule[] = rules as readonly UpstreamRule[];
