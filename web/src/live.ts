/**
 * What starts the sync rounds (WEB.md 1b "Live", API.md 4.6): one request at a time waits on the
 * tasks' cursor with `wait`, and its answer (a change, or the wait running out) starts a round,
 * which reads every kind and the settings. So a change made elsewhere shows as soon as the server
 * hears of it, and an idle tab sends one round every WAIT_SECONDS instead of one every 2 s.
 *
 * Only tasks are waited on, and by one tab per account: a browser opens at most six connections
 * to one server, and a held request per kind, or per tab, would soon leave none for anything
 * else. The tab holding the wait (a Web Lock named after the account) tells the others through a
 * BroadcastChannel when it answers, and each runs a round; a tab not told within WAIT_SECONDS
 * runs one all the same (and tries for the lock). Where the page has no Web Locks (plain http
 * other than to this machine), each tab waits for itself. A change of a project or a context
 * answers the wait on tasks too (API.md 4.6: a change answers every wait of its account), and
 * they come with every round.
 *
 * A proxy in front may cut long requests. A wait that fails while the round right after it reaches
 * the server counts as cut; after CUTS_BEFORE_POLLING of those in a row the app polls (a round
 * every POLL_MS) and tries waiting again RETRY_WAIT_MS later. A wait that fails because the server
 * is gone (the round fails too) is offline, not cut: the app polls until it is back.
 */

/**
 * The settings are in no wait, so the wait is short enough that a change of them made elsewhere
 * still shows within 5 s (WEB.md 3): each wait's end starts a round.
 */
export const WAIT_SECONDS = 4;
/** A round every 2 s when offline or polling: another client's change shows within 5 s (WEB.md 3). */
export const POLL_MS = 2000;
export const CUTS_BEFORE_POLLING = 3;
export const RETRY_WAIT_MS = 5 * 60_000;
/** After a failed wait, before the round that tells cut from offline: no loop of quick failures. */
const AFTER_FAILURE_MS = 1000;

export interface Followed {
  /** One sync round (or the one under way); true when it reached the server. */
  sync(): Promise<boolean>;
  /** The tasks' cursor after the last round, undefined before a first listing. */
  tasksCursor(): string | undefined;
  /** Waits for a task changed after `cursor`, or `seconds` with nothing; throws when it cannot. */
  waitForTasks(cursor: string, seconds: number, signal: AbortSignal): Promise<void>;
  /** Whose changes these are, once known: the tabs of one account share one wait. */
  accountId(): string | null;
}

const CHANNEL = 'task-service.live';

export class LiveFollower {
  private readonly ending = new AbortController();
  private cuts = 0;
  /** While polling after cut waits: when to try waiting again. */
  private pollingUntil = 0;
  private endPause: (() => void) | null = null;
  /** The other tabs' word that the wait answered: the account's id. */
  private readonly channel: BroadcastChannel | null =
    typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;

  constructor(private readonly followed: Followed) {
    if (this.channel !== null)
      this.channel.onmessage = (event: MessageEvent<unknown>) => {
        if (event.data === this.followed.accountId()) this.endPause?.();
      };
  }

  /** Whether rounds come from waits (true) or from polling (cut waits, or offline). */
  get waiting(): boolean {
    return Date.now() >= this.pollingUntil;
  }

  start(): void {
    void this.follow();
  }

  stop(): void {
    this.ending.abort();
    this.endPause?.();
    this.channel?.close();
  }

  /** Ends a pause at once (the browser is online again): the next round need not wait for it. */
  wake(): void {
    this.endPause?.();
  }

  private async follow(): Promise<void> {
    let failed = false;
    while (!this.ending.signal.aborted) {
      const reached = await this.followed.sync();
      if (this.ending.signal.aborted) return;
      if (failed && reached) this.cutOnce();
      const cursor = this.followed.tasksCursor();
      if (!reached || cursor === undefined || !this.waiting) {
        failed = false;
        await this.pause(POLL_MS);
        continue;
      }
      failed = false;
      try {
        if (await this.waitInOneTab(cursor)) this.cuts = 0;
      } catch {
        // Offline, a proxy's cut, or a server that does not know `wait` (E003): the next round tells.
        failed = true;
        await this.pause(AFTER_FAILURE_MS);
      }
    }
  }

  /**
   * Waits here when no other tab of the account does (true), or else until that tab says its wait
   * answered, or WAIT_SECONDS (false).
   */
  private async waitInOneTab(cursor: string): Promise<boolean> {
    const account = this.followed.accountId();
    if (!('locks' in navigator) || account === null) {
      await this.followed.waitForTasks(cursor, WAIT_SECONDS, this.ending.signal);
      return true;
    }
    const waited = await navigator.locks.request(`${CHANNEL}.${account}`, { ifAvailable: true }, async (lock) => {
      if (lock === null) return false;
      await this.followed.waitForTasks(cursor, WAIT_SECONDS, this.ending.signal);
      this.channel?.postMessage(account);
      return true;
    });
    if (!waited) await this.pause(WAIT_SECONDS * 1000);
    return waited;
  }

  private cutOnce(): void {
    this.cuts += 1;
    if (this.cuts < CUTS_BEFORE_POLLING) return;
    this.cuts = 0;
    this.pollingUntil = Date.now() + RETRY_WAIT_MS;
  }

  private async pause(ms: number): Promise<void> {
    if (this.ending.signal.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.endPause?.(), ms);
      this.endPause = () => {
        clearTimeout(timer);
        this.endPause = null;
        resolve();
      };
    });
  }
}
