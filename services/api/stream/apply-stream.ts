/**
 * An `$apply` page as JSON or CSV, group by group: the groups are already in memory (one small query over the
 * statistics tables), but their text repeats per group, so it is written a slice at a time as the client reads
 * (pull), never built whole. JSON key names are encoded once, by JSON.stringify, so any alias OData allows is a
 * plain key, `__proto__` included. CSV is RFC 4180 with the group's names as its header, text quoted and, where a
 * spreadsheet would run it as a formula, given a leading `'` (schemas/csv-cell.ts), as every CSV page's cells are.
 */
import { neutraliseCell } from '../../../schemas/csv-cell.js';
import type { ApplyGroup } from '../exec/execute.js';

/** Groups written per pull: a slice is a few hundred KiB at most, whatever the page. */
const GROUPS_PER_CHUNK = 512;

export interface ApplyFrame {
  /** Each group's key names in order (the groupby fields). */
  readonly keys: readonly string[];
  /** The aggregates' aliases, in the order of each group's values. */
  readonly aliases: readonly string[];
  /** The JSON text before the first group and after the last. */
  readonly prefix: string;
  readonly suffix: string;
}

/** The JSON text of one group; `{"F1":v1,…,"Count":n,"Mean":x}`. A value JSON has no number for is null. */
function groupJson(group: ApplyGroup, names: readonly string[], aliases: readonly string[]): string {
  const keys = group.keys.map((v, i) => `${names[i]}:${JSON.stringify(typeof v === 'bigint' ? Number(v) : (v ?? null))}`);
  const values = group.values.map((v, i) => `${aliases[i]}:${JSON.stringify(typeof v === 'number' && !Number.isFinite(v) ? null : v)}`);
  return `{${[...keys, ...values].join(',')}}`;
}

/** A value as a CSV cell: numbers as they are, text quoted (and neutralised), null empty. */
function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'bigint') return v.toString();
  return `"${neutraliseCell(String(v)).replaceAll('"', '""')}"`;
}

/** The CSV line of one group, with its line break. */
function groupCsv(group: ApplyGroup): string {
  return `${[...group.keys, ...group.values].map(csvCell).join(',')}\r\n`;
}

/** The formats an `$apply` page is written in (a page's Arrow has no form for groups). */
export type ApplyFormat = 'json' | 'csv';

/** The CSV frame of a page of groups: the header line; the next page is in the Link header alone. */
export function applyCsvFrame(keys: readonly string[], aliases: readonly string[]): ApplyFrame {
  return { keys, aliases, prefix: `${[...keys, ...aliases].join(',')}\r\n`, suffix: '' };
}

export function applyStream(groups: readonly ApplyGroup[], frame: ApplyFrame, format: ApplyFormat = 'json'): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const names = frame.keys.map((k) => JSON.stringify(k));
  const aliases = frame.aliases.map((k) => JSON.stringify(k));
  const write = format === 'csv' ? { row: groupCsv, separator: '' } : { row: (g: ApplyGroup) => groupJson(g, names, aliases), separator: ',' };
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(frame.prefix));
      },
      pull(controller) {
        const slice = groups.slice(at, at + GROUPS_PER_CHUNK).map(write.row);
        const text = `${at > 0 && slice.length ? write.separator : ''}${slice.join(write.separator)}`;
        at += slice.length;
        if (text) controller.enqueue(encoder.encode(text));
        if (at >= groups.length) {
          controller.enqueue(encoder.encode(frame.suffix));
          controller.close();
        }
      },
    },
    { highWaterMark: 1 },
  );
}

/**
 * The bytes `applyStream` writes for these groups as JSON, computed without writing them: what MAX_PAGE_BYTES judges
 * (the same groups' CSV, without the key names, is smaller).
 */
export function applyBytes(groups: readonly ApplyGroup[], frame: ApplyFrame): number {
  const names = [...frame.keys, ...frame.aliases].reduce((n, k) => n + JSON.stringify(k).length + 2, 0) + 2;
  let values = 0;
  for (const g of groups) {
    for (const v of g.keys) values += typeof v === 'string' ? v.length + 2 : 20;
    for (const v of g.values) values += typeof v === 'string' ? v.length + 2 : 24;
  }
  return frame.prefix.length + frame.suffix.length + groups.length * names + values;
}
