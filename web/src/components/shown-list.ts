import { useSignal, type Signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { isUnavailable } from '../api.ts';

/** The first wait before a list the server could not be reached for is asked for again. */
const RETRY_FIRST_MS = 2000;
/** The longest wait between two such tries: each wait doubles up to it. */
const RETRY_LONGEST_MS = 30_000;

/** A list a section shows, and how to ask for it again after a change. */
export interface ShownList<T> {
  /** Null until it first came. */
  readonly list: Signal<T | null>;
  /**
   * Whether the last try failed (its failure is in the status): a section says "Loading …" only
   * while it is not, so as not to show the list as on its way beside the failure.
   */
  readonly failed: Signal<boolean>;
  /** Asks for it again; resolves when it is shown or the failure is said. */
  readonly reload: () => Promise<void>;
}

interface RetryState {
  /** Whether the section is still shown: no try is planned after it closed. */
  open: boolean;
  /** The wait before the next try after one that could not reach the server. */
  waitMs: number;
  /** The planned try, if one is. */
  timer: number | undefined;
  /** The failure last said in the status, to take back when the list comes ('' when none). */
  said: string;
}

/**
 * A list a section shows, asked for when it opens (and by `reload`). When the server cannot be
 * reached (offline, or E502/E503 while it is busy or restarting) the failure is said in `status`
 * and the list asked for again on its own while the section is open: at once when the browser is
 * back online, else after a wait that doubles from 2 s to 30 s. The failure it said is taken back
 * when the list comes. A refusal with the server's own reason is said and not tried again.
 */
export function useShownList<T>(
  ask: () => Promise<T>,
  failureText: (error: unknown) => string,
  status: Signal<string | null>,
): ShownList<T> {
  const list = useSignal<T | null>(null);
  const failed = useSignal(false);
  const retry = useRef<RetryState>({ open: true, waitMs: RETRY_FIRST_MS, timer: undefined, said: '' });

  const reload = async (): Promise<void> => {
    const state = retry.current;
    clearTimeout(state.timer);
    state.timer = undefined;
    try {
      list.value = await ask();
      failed.value = false;
      state.waitMs = RETRY_FIRST_MS;
      if (state.said !== '' && status.value === state.said) status.value = null;
      state.said = '';
    } catch (error) {
      state.said = failureText(error);
      status.value = state.said;
      failed.value = true;
      if (!isUnavailable(error) || !state.open) return;
      clearTimeout(state.timer);
      state.timer = window.setTimeout(() => void reload(), state.waitMs);
      state.waitMs = Math.min(state.waitMs * 2, RETRY_LONGEST_MS);
    }
  };

  useEffect(() => {
    const state = retry.current;
    state.open = true;
    const backOnline = (): void => {
      if (state.timer !== undefined) void reload();
    };
    addEventListener('online', backOnline);
    void reload();
    return () => {
      state.open = false;
      clearTimeout(state.timer);
      removeEventListener('online', backOnline);
    };
  }, []);

  return { list, failed, reload };
}
