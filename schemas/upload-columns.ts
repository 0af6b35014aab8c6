import type { FieldDef } from './field.js';
import { storedUploadColumns } from './record-fields.js';
import { upstreamColumns } from './upstream.js';

const stored = new Map(storedUploadColumns.map((f) => [f.name, f]));

/**
 * Every column of the upstream upload template (schemas/upstream/columns.json), in its order, as validation sees
 * it: required exactly when upstream requires it. Columns the API serves keep their catalogue definition; the
 * others (groundwater well and aquifer fields, EventID, sample collection method, …) are typed from upstream's
 * definition. Storage keeps only `storedUploadColumns`.
 */
export const uploadColumns: readonly FieldDef[] = upstreamColumns.map((c): FieldDef => {
  const ours = stored.get(c.name);
  if (ours) return { ...ours, nullable: !c.required };
  const definition = typeof c.definition === 'object' ? c.definition : {};
  const type = definition.type === 'number' ? 'number' : 'string';
  const description = String(definition.description ?? definition.title ?? c.name);
  return { name: c.name, column: c.name, type, nullable: !c.required, selectable: false, description };
});

/**
 * Upload columns that are validated but not stored: the API does not serve them, so ingest checks them as upstream
 * says and then ignores them, with one warning per file that has any (docs/ingest.md, "Columns validated but not stored").
 */
export const uploadOnlyColumns: readonly FieldDef[] = uploadColumns.filter((f) => !stored.has(f.name));
