import type { BaseUrlOptions } from './links.js';

/** What every data handler is built with besides its lease: how to write links, the page's cap, the log. */
export interface HandlerDeps {
  readonly links: BaseUrlOptions;
  /** MAX_PAGE_BYTES; unlimited when left out. */
  readonly limits?: { readonly maxPageBytes?: number | undefined; readonly maxBodyBytes?: number | undefined };
  /** Operational notes: a faster path that failed and was replaced (the client still got its page). */
  readonly log?: (msg: string) => void;
}
