/**
 * What the sender and its delivery thread (delivery-worker.ts) say to each other. Both are this
 * project's code in one process: the messages are trusted, only their shape is named here.
 */

/** One hook's deliveries, signed and sent in order by the thread, stopping at the first that fails. */
export interface DeliveryRun {
  readonly runId: number;
  /** Names the hook's kept connection. */
  readonly hookKey: string;
  /** The hook's URL and the address it was checked to (after DNS): the connection goes there. */
  readonly url: string;
  readonly address: string;
  readonly family: 4 | 6;
  readonly secret: string;
  /** The service's clock less this one's, in µs: tries are timed, and signed, on the service's clock. */
  readonly clockLeadMicros: number;
  /** No try starts after this (epoch ms): the hook's lease must outlast every try. */
  readonly startBeforeMs: number;
  readonly deliveries: readonly { readonly messageId: string; readonly body: string }[];
}

/** A try of a run's delivery, in the run's order; a run's tries stop at the first failed one. */
export interface TriedDelivery {
  /** When it was sent and when its answer ended (or it failed), on the service's clock (µs). */
  readonly at: number;
  readonly answeredAt: number;
  /** The receiver's status; null when none came. */
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export type ToDeliveryThread =
  | { readonly type: 'run'; readonly run: DeliveryRun }
  /** Start no more tries: the runs under way answer with what they tried. */
  | { readonly type: 'stop' };

export interface RunDone {
  readonly runId: number;
  readonly tried: readonly TriedDelivery[];
}

/** Whether a try came through: a 2xx answer. */
export function delivered(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}
