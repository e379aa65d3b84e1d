import { invalid } from '../domain/errors.js';
import { microsFromMillis, MICROS_PER_DAY } from '../domain/time.js';
import type { WriteTx } from '../store/store.js';

/** A POST's `Idempotency-Key` and a digest of what it asked, so a different request is told apart. */
export interface Idempotency {
  readonly key: string;
  readonly requestHash: string;
}

/** How long a key's first answer is replayed. */
export const IDEMPOTENCY_WINDOW_MICROS = MICROS_PER_DAY;

/**
 * Answers a write once per key: a repeat of the same request within the window gets the kept
 * answer and changes nothing; the same key with another request is refused. The answer is kept
 * in the same transaction as the writes, so an answered write and its replay cannot part.
 */
export async function answerOnce(
  tx: WriteTx,
  idempotency: Idempotency | undefined,
  answer: () => Promise<string>,
): Promise<string> {
  if (idempotency === undefined) return answer();
  const kept = await tx.findAnswer(idempotency.key);
  const fresh = kept !== undefined && kept.created > microsFromMillis(Date.now()) - IDEMPOTENCY_WINDOW_MICROS;
  if (fresh) {
    if (kept.requestHash !== idempotency.requestHash) throw invalid('Idempotency-Key', 'used for another request');
    return kept.answer;
  }
  const text = await answer();
  await tx.saveAnswer(idempotency.key, idempotency.requestHash, text);
  return text;
}

/** How a write use case turns its stored records into the answer (rendered by the caller). */
export interface Answering<R> {
  readonly render: (records: readonly R[]) => string;
  readonly idempotency: Idempotency | undefined;
}
