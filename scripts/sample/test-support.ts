import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** A small RFC 4180 reader for tests: quoted fields, doubled quotes, line breaks inside quotes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

export interface CsvFile {
  readonly dataset: string;
  readonly name: string;
  readonly header: readonly string[];
  readonly records: readonly Record<string, string>[];
  readonly text: string;
}

/** Every CSV (plain or gzipped) of every dataset folder under `out`, as header-keyed records. */
export async function readSample(out: string): Promise<CsvFile[]> {
  const files: CsvFile[] = [];
  for (const dataset of (await readdir(out, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    for (const name of (await readdir(join(out, dataset))).filter((n) => /\.csv(\.gz)?$/.test(n)).sort()) {
      const bytes = await readFile(join(out, dataset, name));
      const text = (name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      const [header = [], ...rows] = parseCsv(text);
      const records = rows.map((r) => {
        if (r.length !== header.length) throw new Error(`${dataset}/${name}: row of ${r.length} fields, header has ${header.length}`);
        return Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']));
      });
      files.push({ dataset, name, header, records, text });
    }
  }
  return files;
}
