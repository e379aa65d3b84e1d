import { MICROS_PER_SECOND, type Micros } from '../domain/time.js';
import type { DueReminder } from '../store/store.js';
import type { ReminderService } from './reminders.js';

export interface FirerOptions {
  /** How often it looks for reminders due: the most a firing is late while the service runs. */
  readonly everyMs: number;
  /** Each firing this process claimed, with how late it fired. */
  readonly observe?: (lateMicros: Micros) => void;
  /** A pass or a claim that failed (the store unavailable): the next pass tries again. */
  readonly failed?: (error: unknown) => void;
}

/** Due reminders claimed per read. */
const BATCH = 100;

/** The contract's bound (API.md 4.5): a firing later than this counts as late in /metrics. */
export const LATE_AFTER_MICROS: Micros = 5 * MICROS_PER_SECOND;

/**
 * Fires reminders (API.md 4.5), one per process: each pass reads the reminders due (one read of
 * the store's index of next reminder times) and claims each; a firing another process claimed
 * first is skipped. The first pass, at start, fires what fell due while the service was down.
 */
export class ReminderFirer {
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly reminders: ReminderService,
    private readonly options: FirerOptions,
  ) {}

  start(): void {
    this.#next(0);
  }

  /** Stops looking, and waits for the pass under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  /** One pass: claims every firing due now; how many this process claimed. */
  async fireDue(): Promise<number> {
    let fired = 0;
    for (;;) {
      const due = await this.reminders.due(BATCH);
      let claimed = 0;
      for (const reminder of due) {
        if (this.#stopped) return fired;
        if (!(await this.#claim(reminder))) continue;
        claimed += 1;
        this.options.observe?.(Math.max(0, this.reminders.clock() - reminder.due));
      }
      fired += claimed;
      // A claim may leave the task's next reminder due as well (missed while stopped), and a full
      // batch more behind it: read again until nothing is left that is ours to claim.
      if (claimed === 0) return fired;
    }
  }

  /** A claim that fails is told and left to the next pass, without holding up those after it. */
  async #claim(reminder: DueReminder): Promise<boolean> {
    try {
      return await this.reminders.claim(reminder);
    } catch (error) {
      this.options.failed?.(error);
      return false;
    }
  }

  #next(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.fireDue().then(
        () => undefined,
        (error: unknown) => this.options.failed?.(error),
      );
      void this.#pass.then(() => this.#next(this.options.everyMs));
    }, delayMs);
    this.#timer.unref();
  }
}
