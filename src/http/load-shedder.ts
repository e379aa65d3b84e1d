import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoadLimits {
  /** Requests being served at once past which new ones are refused. */
  readonly maxInFlight: number;
  /** Event-loop delay (ms) in the last sampling window past which new requests are refused. */
  readonly maxEventLoopDelayMs: number;
  /**
   * Work (ms) one turn of the event loop may admit: requests still arriving later in that turn
   * are refused, so that each waits at most about this long plus the cheap refusals before it.
   * Absent: no bound.
   */
  readonly maxTurnMs?: number;
}

/** The event loop's delay is judged over windows this long: one that blocked it is forgotten a window later. */
export const WINDOW_MS = 250;

/**
 * Refuses work early (E503 with Retry-After) when the process is saturated, so that clients get a
 * fast answer to retry instead of a time-out, and the requests already admitted still finish.
 */
export class LoadShedder {
  private inFlight = 0;
  private saturated = false;
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  private timer: NodeJS.Timeout | undefined;
  /** Whether requests come in turns of the event loop: once the app listens (see timeTurns). */
  private timingTurns = false;
  /** When the current turn of the event loop admitted its first request; undefined between turns. */
  private turnStartedAt: number | undefined;
  private readonly endTurn = (): void => {
    this.turnStartedAt = undefined;
  };

  constructor(private readonly limits: LoadLimits) {}

  start(): void {
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.saturated = this.histogram.max / 1e6 > this.limits.maxEventLoopDelayMs;
      this.histogram.reset();
    }, WINDOW_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }

  /**
   * Bounds the work of one turn of the event loop from now on. Called when the app listens: only
   * requests read from sockets arrive in turns; injected ones (tests) run back to back in
   * microtasks, where the loop does not come round however long they take together.
   */
  timeTurns(): void {
    this.timingTurns = true;
  }

  /** Admits a request (call `leave` when it is answered) or refuses it. */
  enter(): boolean {
    if (this.saturated || this.inFlight >= this.limits.maxInFlight || this.turnIsFull()) return false;
    this.inFlight += 1;
    return true;
  }

  /**
   * The first half of `enter`, for a request whose body is still to come: whether the process
   * takes new requests now (the loop is not saturated, this turn not full). Checked as the request
   * arrives, as for any other; it counts in flight only once its body is in (`enterWithBody`).
   */
  accepts(): boolean {
    return !this.saturated && !this.turnIsFull();
  }

  /** The second half: counts a request whose body is in (call `leave` when it is answered), or refuses it. */
  enterWithBody(): boolean {
    if (this.inFlight >= this.limits.maxInFlight) return false;
    this.inFlight += 1;
    return true;
  }

  /**
   * Requests whose bytes are ready are handled one after another in one turn of the event loop
   * (under a flood libuv takes up to 48 × 1024 events before it comes round), and the requests
   * are mostly synchronous work, so neither the in-flight count nor the loop delay sees that
   * queue. The turn is timed instead: from its first request until `setImmediate` runs, which is
   * when the loop has come round.
   */
  private turnIsFull(): boolean {
    if (!this.timingTurns || this.limits.maxTurnMs === undefined) return false;
    const now = performance.now();
    if (this.turnStartedAt === undefined) {
      this.turnStartedAt = now;
      setImmediate(this.endTurn);
      return false;
    }
    return now - this.turnStartedAt > this.limits.maxTurnMs;
  }

  leave(): void {
    this.inFlight -= 1;
  }

  /** Counts again a request that was resting (a wait for changes that woke up), whatever the load. */
  reenter(): void {
    this.inFlight += 1;
  }
}
