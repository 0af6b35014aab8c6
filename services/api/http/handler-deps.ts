import type { BaseUrlOptions } from './links.js';

/** What every data handler is built with besides its lease: how to write links, the page's cap, the log. */
export interface HandlerDeps {
  readonly links: BaseUrlOptions;
  /**
   * MAX_PAGE_BYTES and MAX_APPLY_GROUPS, unlimited when left out; APPLY_ROWS_READ_PER_ROW, its default when left out.
   */
  readonly limits?: {
    readonly maxPageBytes?: number | undefined;
    readonly maxBodyBytes?: number | undefined;
    readonly maxApplyGroups?: number | undefined;
    readonly applyRowsReadPerRow?: number | undefined;
  };
  /** Operational notes: a faster path that failed and was replaced (the client still got its page). */
  readonly log?: (msg: string) => void;
}
