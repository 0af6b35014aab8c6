import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter that ends the run with its slowest test files, so that a file which becomes slow is seen in
 * the run that made it so (`make test` lists it after the default reporter's summary).
 */

export interface FileTime {
  readonly file: string;
  /** What the file cost its worker: environment, set-up files, import, and every test and hook. */
  readonly ms: number;
}

/** A module's time as its worker spent it; 0 for a module that never ran. */
export function fileTime(module: TestModule, root: string): FileTime {
  const d = module.diagnostic();
  const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
  return { file: relative(root, module.moduleId), ms };
}

/** The `count` slowest of `times`, as lines of a table ('' when there is nothing to list). */
export function slowestFiles(times: readonly FileTime[], count: number): string {
  const top = [...times].sort((a, b) => b.ms - a.ms || (a.file < b.file ? -1 : 1)).slice(0, count);
  if (top.length === 0) return '';
  const width = Math.max(...top.map((t) => (t.ms / 1000).toFixed(1).length));
  const rows = top.map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(width)} s  ${t.file}`);
  return ['Slowest test files (time in their worker):', ...rows, ''].join('\n');
}

export default class SlowestFilesReporter implements Reporter {
  private root = process.cwd();

  private readonly count: number;

  constructor(options: { readonly count?: number } = {}) {
    this.count = options.count ?? 10;
  }

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const text = slowestFiles(modules.map((m) => fileTime(m, this.root)), this.count);
    if (text) process.stdout.write(`\n${text}`);
  }
}
