import { Readable } from 'node:stream';
import type { Listing } from '../service/listing.js';
import { encodeCursor } from './wire/cursor.js';

/** Answers up to this size are sent as one string; larger ones stream from their snapshot. */
const STREAM_THRESHOLD_CHARS = 256 * 1024;

async function* listChunks<T extends { readonly rev: number }>(
  listing: Listing<T>,
  render: (record: T) => string,
): AsyncGenerator<string> {
  try {
    let first = true;
    yield '{"entries":[';
    for await (const batch of listing.batches()) {
      let chunk = '';
      for (const record of batch) {
        chunk += first ? render(record) : ',' + render(record);
        first = false;
      }
      yield chunk;
    }
    yield `],"cursor":"${encodeCursor(listing.cursorRev)}","has_more":${String(listing.hasMore)}}`;
  } finally {
    await listing.close();
  }
}

/**
 * The JSON text of a list answer `{"entries":[…],"cursor":…,"has_more":…}`: a string when it is
 * small, else a stream that reads the rest of the snapshot as the client takes it.
 */
export async function listBody<T extends { readonly rev: number }>(
  listing: Listing<T>,
  render: (record: T) => string,
): Promise<string | Readable> {
  const chunks = listChunks(listing, render);
  let head = '';
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) return head;
    head += next.value;
    if (head.length > STREAM_THRESHOLD_CHARS) break;
  }
  async function* rest(): AsyncGenerator<string> {
    yield head;
    yield* chunks;
  }
  const stream = Readable.from(rest(), { objectMode: false });
  // However the stream ends (a client gone before reading), the snapshot is released.
  stream.once('close', () => void chunks.return(undefined));
  return stream;
}
