import type { OutboxEvent } from '../../domain/webhook.js';
import type { DeliveryContext } from '../../service/webhooks.js';

/**
 * What the sender and its delivery thread (delivery-worker.ts) say to each other. Both are this
 * project's code in one process: the messages are trusted, only their shape is named here.
 */

/** A delivery as sent: its id, repeated on every try, and its body. */
export interface Delivery {
  readonly messageId: string;
  readonly body: string;
}

/** What a change of the outbox is to the sender: where it is, what it is, when it was made. */
export type ChangeHead = Pick<OutboxEvent, 'rev' | 'type' | 'created'>;

/**
 * A batch of a hook's outbox that the thread reads itself (when it has a reader of its own):
 * the changes after `afterRev`, of which it delivers those the hook asked for.
 */
export interface OutboxBatch {
  readonly accountId: number;
  readonly hookId: string;
  readonly afterRev: number;
  readonly limit: number;
  readonly asked: readonly string[];
  readonly context: DeliveryContext;
}

/** One hook's deliveries, signed and sent in order by the thread, stopping at the first that fails. */
interface RunOfHook {
  readonly runId: number;
  /** Names the hook's kept connection. */
  readonly hookKey: string;
  /** The hook's URL and the address it was checked to (after DNS): the connection goes there. */
  readonly url: string;
  readonly address: string;
  readonly secret: string;
  /** The service's clock less this one's, in µs: tries are timed, and signed, on the service's clock. */
  readonly clockLeadMicros: number;
  /** No try starts after this (epoch ms): the hook's lease must outlast every try. */
  readonly startBeforeMs: number;
}

/** The deliveries as the sender made them, or a batch of the outbox the thread reads and makes them of. */
export type DeliveryRun = RunOfHook & ({ readonly deliveries: readonly Delivery[] } | { readonly batch: OutboxBatch });

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

/** What a run came to: its tries, and of a run that read its batch, every change read or why none was. */
export interface RunResult {
  readonly tried: readonly TriedDelivery[];
  readonly read?: readonly ChangeHead[] | { readonly failed: string };
}

export interface RunDone {
  readonly runId: number;
  readonly result: RunResult;
}

/** Whether a try came through: a 2xx answer. */
export function delivered(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}
