/**
 * How the bench starts the ingest CLI: as `make ingest` does, the compiled JavaScript when INGEST_MAIN is set
 * (`make bench` builds it), else `ingest/main.ts` through tsx (slower to start every process). `peakRss`: preload
 * peak-rss, which writes the peak RSS to PEAK_RSS_FILE at exit.
 */
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export function ingestCommand(args: readonly string[], opts: { readonly peakRss?: boolean } = {}): string[] {
  const main = process.env['INGEST_MAIN'];
  if (main) {
    // --import takes a URL or a package name: a relative path would be looked up as a package.
    const preload = pathToFileURL(resolve(join(dirname(main), '..', 'scripts', 'bench', 'peak-rss.js'))).href;
    return [...(opts.peakRss ? ['--import', preload] : []), main, ...args];
  }
  return ['--import', 'tsx', ...(opts.peakRss ? ['--import', new URL('./peak-rss.ts', import.meta.url).pathname] : []), 'ingest/main.ts', ...args];
}

/** How the bench starts its bare-load reference (bare-load.ts) beside the ingest: compiled when the ingest is. */
export function bareLoadCommand(args: readonly string[]): string[] {
  const main = process.env['INGEST_MAIN'];
  if (main) return [resolve(join(dirname(main), '..', 'scripts', 'bench', 'bare-load.js')), ...args];
  return ['--import', 'tsx', new URL('./bare-load.ts', import.meta.url).pathname, ...args];
}
