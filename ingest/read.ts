import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { doiKey, metadataSchema, type ValidationLevel } from '../schemas/metadata-schema.js';
import { uploadOnlyColumns, upstreamSource } from '../schemas/index.js';
import { requiredUploadColumns } from '../schemas/observation-row.js';
import { mapColumns } from './column-map.js';
import { storedRequired } from './row-checks.js';
import { contentHash } from './content-hash.js';
import { readCsvHeader } from './csv-header.js';
import { sourceFileProblem } from './source-file-problem.js';
import { datasetIdFromDoi } from './dataset-id.js';
import { formulaMessage, metadataFormulas } from './metadata-formulas.js';
import { loadRegionsFile } from './regions.js';
import { failedReport, type DatasetReport, type Reject, type Warning } from './report.js';
import type { ReadPart, ReadResult, SourceDataset, SourceFile } from './stage-parts.js';

/**
 * Stage 1 (read): what SRC holds, before any row is parsed, and REGIONS_FILE's regions (read here so that a bad file
 * fails the run before anything is built). The boundaries come later, in derive, for the locations the build has.
 */

/** How metadata.json is judged beyond its schema. */
export interface SourceOptions {
  /** The operator's restriction of DOIs (DOI_PATTERN); any DOI by its standard syntax when absent. */
  readonly doiPattern?: RegExp;
}

export async function read(src: string, regionsFile?: string, options: SourceOptions = {}): Promise<ReadPart> {
  const sources = await readSources(src, options);
  if (sources.datasets.length === 0) return { ...sources, regions: [] };
  return { ...sources, regions: regionsFile ? await loadRegionsFile(regionsFile) : [] };
}

/** A dataset folder's data file: a CSV, plain or gzipped. */
export const isDataFile = (name: string) => /\.csv(\.gz)?$/i.test(name);

export async function readSources(src: string, options: SourceOptions = {}): Promise<ReadResult> {
  const schema = metadataSchema(options);
  const entries = await readdir(src, { withFileTypes: true });
  const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  const datasets: SourceDataset[] = [];
  const failed: DatasetReport[] = [];
  const byDoi = new Map<string, string>();
  const srcReal = await realpath(src);
  for (const folder of folders) {
    const result = await readDataset(join(src, folder), folder, schema, srcReal);
    if ('error' in result) {
      failed.push(result.error);
      continue;
    }
    const key = doiKey(result.metadata.DOI);
    const other = byDoi.get(key);
    if (other !== undefined) {
      failed.push(failedAs(result, `DOI ${result.metadata.DOI} is also the DOI of folder '${other}'; neither copy is ingested`));
      const first = datasets.findIndex((d) => d.folder === other);
      if (first >= 0) failed.push(failedAs(datasets.splice(first, 1)[0]!, `DOI also used by folder '${folder}'`));
      continue;
    }
    byDoi.set(key, folder);
    datasets.push(result);
  }
  return { datasets, failed };
}

const failedAs = (ds: SourceDataset, error: string) => failedReport(ds.metadata.DOI, ds.folder, error, ds.found);

async function readDataset(dir: string, folder: string, schema: ReturnType<typeof metadataSchema>, srcReal: string): Promise<SourceDataset | { error: DatasetReport }> {
  let bytes: Buffer;
  try {
    const linked = await sourceFileProblem(join(dir, 'metadata.json'), `${folder}/metadata.json`, srcReal);
    if (linked) return { error: failedReport(null, folder, linked) };
    bytes = await readFile(join(dir, 'metadata.json'));
  } catch {
    return { error: failedReport(null, folder, `${folder}/metadata.json is missing or unreadable`) };
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return { error: failedReport(null, folder, `${folder}/metadata.json is not valid JSON: ${(err as Error).message}`) };
  }
  const rawDoi = typeof json === 'object' && json !== null && typeof (json as { DOI?: unknown }).DOI === 'string' ? (json as { DOI: string }).DOI : null;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    return { error: failedReport(rawDoi, folder, `${folder}/metadata.json is invalid: ${why}`) };
  }
  const metadata = { ...parsed.data, Id: parsed.data.Id ?? datasetIdFromDoi(parsed.data.DOI), ValidationLevel: (parsed.data.ValidationLevel ?? 'upstream') as ValidationLevel };
  const formulas = metadataFormulas(metadata);
  if (formulas.length > 0 && metadata.ValidationLevel === 'upstream') {
    return { error: failedReport(metadata.DOI, folder, `${folder}/metadata.json is invalid: ${formulas.map((f) => formulaMessage(f, 'upstream')).join('; ')}`) };
  }
  const names = (await readdir(dir)).filter(isDataFile).sort();
  if (names.length === 0) return { error: failedReport(metadata.DOI, folder, `${folder} has no .csv or .csv.gz data file`) };
  for (const name of names) {
    const problem = await sourceFileProblem(join(dir, name), `${folder}/${name}`, srcReal);
    if (problem) return { error: failedReport(metadata.DOI, folder, problem) };
  }
  const files: SourceFile[] = [];
  const found = { rejects: [] as Reject[], warnings: formulas.map((f): Warning => ({ file: `${folder}/metadata.json`, message: formulaMessage(f, metadata.ValidationLevel) })) };
  for (const name of names) {
    const file = await readFileHeader(join(dir, name), `${folder}/${name}`, found, metadata.ValidationLevel);
    if (file) files.push(file);
  }
  const hash = await contentHash(bytes, names.map((n) => join(dir, n)));
  return { folder, metadata, files, contentHash: hash, found };
}

/** One file's header mapped to the upload columns; what it says about the file goes into `found`. */
async function readFileHeader(path: string, name: string, found: { rejects: Reject[]; warnings: Warning[] }, level: ValidationLevel): Promise<SourceFile | null> {
  let header: string[];
  try {
    header = await readCsvHeader(path);
  } catch (err) {
    found.rejects.push({ file: name, line: 1, column: null, reason: `file rejected: ${(err as Error).message}` });
    return null;
  }
  // At `storable` a file may lack a column upstream requires and the API does not (ResultValueType): its rows
  // then fail that check, counted as a warning, as an empty cell would.
  const columns = mapColumns(header, level === 'storable' ? requiredUploadColumns.filter((c) => storedRequired.has(c)) : requiredUploadColumns);
  for (const { index, name: column } of columns.unknown) {
    found.warnings.push({ file: name, line: 1, message: `unknown column '${column}' (position ${index + 1}) is ignored` });
  }
  const unserved = uploadOnlyColumns.filter((f) => columns.indexOf.get(f.name) != null).map((f) => f.name);
  if (unserved.length > 0) {
    found.warnings.push({ file: name, line: 1, message: `column(s) ${unserved.join(', ')} are validated as DataStream schema ${upstreamSource.version} says, then not stored: this API version does not serve them` });
  }
  for (const { column, reason } of columns.errors) found.rejects.push({ file: name, line: 1, column, reason });
  if (columns.errors.length > 0) return null;
  return { path, name, columns };
}
