import { isFormulaText } from '../schemas/csv-cell.js';
import type { DatasetMetadata, ValidationLevel } from '../schemas/metadata-schema.js';
import { metadataFields } from '../schemas/metadata-fields.js';

/**
 * metadata.json's text judged by the rule upstream's `CSVInjection` applies to a row's text columns: text a
 * spreadsheet would run as a formula (schemas/csv-cell.ts; upstream's pattern refuses a leading `=`, `+`, `-`, `@`,
 * tab or CR). At the `upstream` level the dataset is refused, naming each field and what to do; at `storable` it is
 * published as given, with a warning per field, since every CSV the service writes neutralises such a cell anyway.
 */

/** A text field's value (a list's item, `Keywords[2]`) that a spreadsheet would run. */
export interface FormulaField {
  readonly field: string;
  readonly first: string;
}

const textFields = metadataFields.filter((f) => (f.type === 'string' || f.type === 'string[]') && f.name !== 'DOI' && f.name !== 'ValidationLevel');

export function metadataFormulas(metadata: DatasetMetadata): FormulaField[] {
  return textFields.flatMap((f) => {
    const value = metadata[f.name];
    const items = typeof value === 'string' ? [[f.name, value] as const] : Array.isArray(value) ? value.map((v, i) => [`${f.name}[${i}]`, v] as const) : [];
    return items.filter(([, v]) => isFormulaText(v)).map(([field, v]) => ({ field, first: JSON.stringify(v[0]) }));
  });
}

/** What the report says of one field: an error at `upstream`, a warning at `storable`. */
export function formulaMessage(f: FormulaField, level: ValidationLevel): string {
  const what = `${f.field} starts with ${f.first}, which a spreadsheet runs as a formula (DataStream's CSVInjection rule)`;
  switch (level) {
    case 'upstream':
      return `${what}: remove that first character, or declare "ValidationLevel": "storable" to publish it as given`;
    case 'storable':
      return `${what}: published as given at ValidationLevel storable; every CSV the service writes gives such a cell a leading '`;
    default: {
      const never: never = level;
      throw new Error(`unknown validation level ${String(never)}`);
    }
  }
}
