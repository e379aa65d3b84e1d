/**
 * A receiver's answer that is not HTTP/1.x as RFC 9112 frames it: the delivery fails with this
 * message, and its connection is not used again.
 */
export class MalformedAnswer extends Error {}

/** How the body of an answer ends (RFC 9112 6.3). */
type Framing =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; left: number }
  | { readonly kind: 'chunked'; part: 'size' | 'data' | 'data end' | 'trailers'; left: number }
  | { readonly kind: 'close' };

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: |$)/;
const DIGITS = /^\d{1,15}$/;
const HEX = /^[0-9a-fA-F]{1,12}$/;
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout=(\d{1,6})/i;
/** A chunk's size line (with its extensions) or a trailer line longer than this is not an answer. */
const LINE_BYTES = 8 * 1024;

/**
 * Reads one HTTP/1.1 answer off a connection, fed as it arrives, far enough to know its status
 * and where it ends: interim (1xx) answers are passed over, the body is counted, not kept. The
 * bytes are read as latin1, one character each, so lengths are byte counts.
 */
export class AnswerReader {
  #pending = '';
  /** Where the head's end is still to be looked for: a head that comes a few bytes at a time is searched once. */
  #headSearchFrom = 0;
  #framing: Framing | undefined;
  #status: number | null = null;
  #keep = false;
  #keepAliveMs: number | undefined;
  #whole = false;

  /** The final answer's status, once its head is in. */
  get status(): number | null {
    return this.#status;
  }

  /** Whether the connection may carry the next request once this answer is whole. */
  get keep(): boolean {
    return this.#keep && this.#whole;
  }

  /** How long the receiver said it keeps an idle connection (its Keep-Alive header), if it did. */
  get keepAliveMs(): number | undefined {
    return this.#keepAliveMs;
  }

  /** Reads `chunk`; true once the answer is whole. Throws MalformedAnswer. */
  feed(chunk: Buffer): boolean {
    if (this.#whole) {
      // Bytes after a whole answer, unasked for: the connection is not used again.
      if (chunk.length > 0) this.#keep = false;
      return true;
    }
    this.#pending += chunk.toString('latin1');
    for (;;) {
      const framing = this.#framing;
      if (framing === undefined) {
        if (!this.#readHead()) return false;
      } else if (framing.kind === 'length') {
        framing.left = this.#skip(framing.left);
        if (framing.left === 0) return this.#end();
        return false;
      } else if (framing.kind === 'chunked') {
        if (!this.#readChunked(framing)) return false;
        return this.#end();
      } else if (framing.kind === 'close') {
        this.#pending = '';
        return false;
      } else {
        return this.#end();
      }
    }
  }

  /** The connection closed: true when that ends the answer (a body that runs to the close). */
  closed(): boolean {
    if (this.#framing?.kind !== 'close') return this.#whole;
    this.#whole = true;
    return true;
  }

  /** Passes over up to `left` bytes of body that are in; what is still to come. */
  #skip(left: number): number {
    const taken = Math.min(left, this.#pending.length);
    this.#pending = this.#pending.slice(taken);
    return left - taken;
  }

  #end(): boolean {
    this.#whole = true;
    if (this.#pending.length > 0) this.#keep = false;
    this.#pending = '';
    return true;
  }

  /** Reads a head if one is in; an interim answer's is passed over. */
  #readHead(): boolean {
    const end = this.#pending.indexOf('\r\n\r\n', this.#headSearchFrom);
    if (end === -1) {
      this.#headSearchFrom = Math.max(0, this.#pending.length - 3);
      return false;
    }
    this.#headSearchFrom = 0;
    const lines = this.#pending.slice(0, end).split('\r\n');
    this.#pending = this.#pending.slice(end + 4);
    const statusLine = STATUS_LINE.exec(lines[0] ?? '');
    if (statusLine === null) throw new MalformedAnswer('the answer is not HTTP/1.x');
    const status = Number(statusLine[2]);
    // 100 Continue, 103 Early Hints: a final answer follows. 101 ends the exchange (nothing asked to switch).
    if (status < 200 && status !== 101) return true;
    const fields = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new MalformedAnswer('the answer has a header line without a name');
      const name = line.slice(0, colon).trim().toLowerCase();
      fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()]);
    }
    this.#status = status;
    this.#framing = framingOf(status, fields);
    const connection = (fields.get('connection') ?? []).join(',').toLowerCase().split(',');
    // Both a length and a transfer coding: the coding frames it (RFC 9112 6.3), and the connection
    // is not trusted with another request.
    const framedTwice = fields.has('transfer-encoding') && fields.has('content-length');
    this.#keep =
      statusLine[1] === '1' &&
      status !== 101 &&
      this.#framing.kind !== 'close' &&
      !framedTwice &&
      !connection.some(isClose);
    const timeout = KEEP_ALIVE_TIMEOUT.exec((fields.get('keep-alive') ?? []).join(','));
    if (timeout !== null) this.#keepAliveMs = Number(timeout[1]) * 1000;
    return true;
  }

  /** Reads chunks as far as they are in; true at the end of the trailers. */
  #readChunked(framing: Framing & { kind: 'chunked' }): boolean {
    for (;;) {
      if (framing.part === 'data') {
        framing.left = this.#skip(framing.left);
        if (framing.left > 0) return false;
        framing.part = 'data end';
        continue;
      }
      const lineEnd = this.#pending.indexOf('\r\n');
      if (lineEnd === -1) {
        if (this.#pending.length > LINE_BYTES) throw new MalformedAnswer('a chunk line of the answer is too long');
        return false;
      }
      const line = this.#pending.slice(0, lineEnd);
      this.#pending = this.#pending.slice(lineEnd + 2);
      if (framing.part === 'data end') {
        if (line !== '') throw new MalformedAnswer('a chunk of the answer is longer than it said');
        framing.part = 'size';
      } else if (framing.part === 'size') {
        const size = (line.split(';')[0] ?? '').trim();
        if (!HEX.test(size)) throw new MalformedAnswer('a chunk of the answer has no size');
        framing.left = Number.parseInt(size, 16);
        framing.part = framing.left === 0 ? 'trailers' : 'data';
      } else if (line === '') {
        return true;
      }
    }
  }
}

function isClose(token: string): boolean {
  return token.trim() === 'close';
}

function framingOf(status: number, fields: ReadonlyMap<string, readonly string[]>): Framing {
  if (status === 204 || status === 304) return { kind: 'none' };
  const codings = fields.get('transfer-encoding');
  if (codings !== undefined) {
    const last = codings.join(',').split(',').at(-1)?.trim().toLowerCase();
    return last === 'chunked' ? { kind: 'chunked', part: 'size', left: 0 } : { kind: 'close' };
  }
  const lengths = new Set(
    (fields.get('content-length') ?? []).flatMap((value) => value.split(',')).map((v) => v.trim()),
  );
  if (lengths.size === 0) return { kind: 'close' };
  const [length] = lengths;
  if (lengths.size > 1 || length === undefined || !DIGITS.test(length)) {
    throw new MalformedAnswer('the answer has no single valid content-length');
  }
  const left = Number(length);
  return left === 0 ? { kind: 'none' } : { kind: 'length', left };
}
