import { readdir, readFile } from 'node:fs/promises';
import { parseCsv } from '../../ingest/csv-text.js';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Re-exported for the tests that read generated CSVs. */
export { parseCsv };

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
