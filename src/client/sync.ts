import { TaskServiceError } from './errors.js';

/** One page of a sync. */
export interface SyncPage<T> {
  readonly entries: readonly T[];
  /** Where the next sync starts; after the last page (hasMore false): "everything up to now". */
  readonly cursor: string;
  readonly hasMore: boolean;
  /**
   * True for the pages of a full listing (no cursor given, or a restart): together they are the
   * whole set, so a local copy is replaced by them rather than updated.
   */
  readonly full: boolean;
  /** True on the first page of a full listing started because the cursor had expired (E008). */
  readonly restarted: boolean;
}

/** Fetches one page: from `cursor` (undefined: a full listing), at most `limit` entries. */
export type PageReader<T> = (
  cursor: string | undefined,
  limit: number | undefined,
) => Promise<{ entries: readonly T[]; cursor: string; has_more: boolean }>;

/**
 * The pages of a sync from `cursor`, following `has_more` to the end. When the service answers
 * E008 (the cursor is older than the oldest purge), it starts over with a full listing and says
 * so on that listing's first page (`restarted`).
 */
export async function* syncPages<T>(
  read: PageReader<T>,
  cursor: string | undefined,
  limit?: number,
): AsyncGenerator<SyncPage<T>> {
  let position = cursor;
  let full = cursor === undefined;
  let restarted = false;
  for (;;) {
    let page: Awaited<ReturnType<PageReader<T>>>;
    try {
      page = await read(position, limit);
    } catch (error) {
      if (!(error instanceof TaskServiceError && error.retcode === 'E008') || position === undefined || full)
        throw error;
      position = undefined;
      full = true;
      restarted = true;
      continue;
    }
    yield { entries: page.entries, cursor: page.cursor, hasMore: page.has_more, full, restarted };
    restarted = false;
    if (!page.has_more) return;
    position = page.cursor;
  }
}
