import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './targets.js';

/** A receiver gets this long for its whole answer (API.md 4.7). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Of its answer this much is read at most; the rest is not waited for. */
export const ANSWER_READ_BYTES = 64 * 1024;

export interface PostOutcome {
  /** The receiver's status; null when none came (time-out, refused, reset). */
  readonly status: number | null;
  readonly error: string | null;
}

interface Tried extends PostOutcome {
  /** It failed on a kept connection the receiver had closed by the time it was used. */
  readonly stale: boolean;
}

/**
 * POSTs `body` to the checked address, the URL's host name kept for TLS and Host, over the
 * agent's kept connection when it has one (ReceiverConnections). Bounded: the whole exchange is
 * cut at 10 s and the answer read to 64 KiB at most; a redirect is an answer like any other (not
 * followed). Never rejects.
 */
export async function post(
  target: CheckedTarget,
  headers: Readonly<Record<string, string>>,
  body: string,
  agent: http.Agent,
): Promise<PostOutcome> {
  const first = await postOnce(target, headers, body, agent);
  // The receiver may close an idle connection just as it is reused: the agent makes a new one.
  const { status, error } = first.stale ? await postOnce(target, headers, body, agent) : first;
  return { status, error };
}

function postOnce(
  target: CheckedTarget,
  headers: Readonly<Record<string, string>>,
  body: string,
  agent: http.Agent,
): Promise<Tried> {
  return new Promise((resolve) => {
    let settled = false;
    /** `whole`: the answer was read to its end, so the connection may be kept for the next. */
    const settle = (outcome: Tried, whole = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!whole) request.destroy();
      resolve(outcome);
    };
    // The address checked, whatever the name resolves to now.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all === true) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const options = {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinned,
      agent,
    };
    const request =
      target.url.protocol === 'https:' ? https.request(target.url, options) : http.request(target.url, options);
    const timer = setTimeout(
      () => settle({ status: null, error: 'no answer within 10 s', stale: false }),
      DELIVERY_TIMEOUT_MS,
    );
    request.on('error', (error) => {
      const stale = request.reusedSocket && 'code' in error && error.code === 'ECONNRESET';
      settle({ status: null, error: error.message, stale });
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? null;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= ANSWER_READ_BYTES) settle({ status, error: null, stale: false });
      });
      response.on('end', () => settle({ status, error: null, stale: false }, true));
      response.on('error', () => settle({ status, error: null, stale: false }));
    });
    request.end(body);
  });
}
