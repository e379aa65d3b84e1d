import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoadLimits {
  /** Requests being served at once past which new ones are refused. */
  readonly maxInFlight: number;
  /** Event-loop delay (ms) in the last sampling window past which new requests are refused. */
  readonly maxEventLoopDelayMs: number;
}

const WINDOW_MS = 250;

/**
 * Refuses work early (E503 with Retry-After) when the process is saturated, so that clients get a
 * fast answer to retry instead of a time-out, and the requests already admitted still finish.
 */
export class LoadShedder {
  private inFlight = 0;
  private saturated = false;
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  private timer: NodeJS.Timeout | undefined;

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

  /** Admits a request (call `leave` when it is answered) or refuses it. */
  enter(): boolean {
    if (this.saturated || this.inFlight >= this.limits.maxInFlight) return false;
    this.inFlight += 1;
    return true;
  }

  leave(): void {
    this.inFlight -= 1;
  }
}
