import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Listing } from '../service/listing.js';
import type { ListStreams } from './list-streams.js';
import { WireError } from './wire/errors.js';
import { LIST_START, listEnd } from './wire/envelopes.js';

/** Answers up to this size are sent as one string; larger ones stream from their snapshot. */
const STREAM_THRESHOLD_CHARS = 256 * 1024;

/**
 * A stream's pieces are about this size: records are joined until a piece reaches it. A batch of
 * the store (500 records) is never one string, since 500 large records make hundreds of MB.
 */
const CHUNK_CHARS = 64 * 1024;

async function* listChunks<T extends { readonly rev: number }>(
  listing: Listing<T>,
  render: (record: T) => string,
): AsyncGenerator<string> {
  try {
    let first = true;
    yield LIST_START;
    let chunk = '';
    for await (const batch of listing.batches()) {
      for (const record of batch) {
        chunk += first ? render(record) : ',' + render(record);
        first = false;
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
          // A client on a fast link takes every piece at once, and the stream then reads the next
          // in the same turn of the event loop: a list of large records would hold the process
          // for seconds. Each piece waits for the loop to come round, so others are served between.
          await nextTurn();
        }
      }
    }
    if (chunk !== '') yield chunk;
    yield listEnd(listing.cursor, listing.hasMore);
  } finally {
    await listing.close();
  }
}

/** Who asks for a list, and the streams it would join: an answer that streams needs a slot. */
export interface StreamAdmission {
  readonly streams: ListStreams;
  readonly accountId: number;
}

/**
 * The JSON text of a list answer `{"entries":[…],"cursor":…,"has_more":…}`: a string when it is
 * small, else a stream that reads the rest of the snapshot as the client takes it. A stream needs
 * a slot of `streams`; without one the snapshot is dropped and the answer is E503.
 */
export async function listBody<T extends { readonly rev: number }>(
  listing: Listing<T>,
  render: (record: T) => string,
  admission: StreamAdmission,
): Promise<string | Readable> {
  const chunks = listChunks(listing, render);
  let head = '';
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) return head;
    head += next.value;
    if (head.length > STREAM_THRESHOLD_CHARS) break;
  }
  if (!admission.streams.admit(admission.accountId)) {
    await chunks.return(undefined);
    throw WireError.unavailable();
  }
  let pulled = (): void => undefined;
  async function* rest(): AsyncGenerator<string> {
    yield head;
    for (;;) {
      pulled();
      const next = await chunks.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  const stream = Readable.from(rest(), { objectMode: false });
  ({ pulled } = admission.streams.watch(admission.accountId, stream));
  // However the stream ends (a client gone before reading, a deadline), the snapshot is released.
  stream.once('close', () => void chunks.return(undefined));
  return stream;
}
