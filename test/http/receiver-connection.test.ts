/**
 * The delivery thread's own HTTP/1.1 client (issue #24): it reads a receiver's answer as RFC 9112
 * frames it, however the bytes are split, keeps the connection only when the answer said where it
 * ends and did not ask to close, checks a TLS receiver's certificate against the URL's name, and
 * sends the body's bytes exactly. Over real sockets.
 */
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import fc from 'fast-check';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerReader, MalformedAnswer } from '../../src/http/webhooks/answer-reader.js';
import { ReceiverConnection } from '../../src/http/webhooks/receiver-connection.js';

interface Read {
  readonly whole: boolean;
  readonly status: number | null;
  readonly keep: boolean;
}

/** Feeds `answer` to a reader in the pieces `cuts` makes of it, and says how it ended at its close. */
function readInPieces(answer: string, cuts: readonly number[] = []): Read {
  const bytes = Buffer.from(answer, 'latin1');
  const reader = new AnswerReader();
  let whole = false;
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(bytes.length)) {
    const end = Math.min(cut, bytes.length);
    if (end <= from) continue;
    // Bytes after a whole answer, as the connection sees them between two POSTs: not kept.
    whole = reader.feed(bytes.subarray(from, end)) || whole;
    from = end;
  }
  return { whole, status: reader.status, keep: reader.keep };
}

const ANSWERS: readonly (readonly [string, Read])[] = [
  ['HTTP/1.1 204 No Content\r\nDate: now\r\n\r\n', { whole: true, status: 204, keep: true }],
  ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello', { whole: true, status: 200, keep: true }],
  [
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer: t\r\n\r\n',
    { whole: true, status: 200, keep: true },
  ],
  [
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok',
    { whole: true, status: 202, keep: true },
  ],
  [
    'HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n',
    { whole: true, status: 200, keep: false },
  ],
  ['HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', { whole: true, status: 200, keep: false }],
  // Runs to the close: whole only then.
  ['HTTP/1.1 500 Oops\r\n\r\npartial', { whole: false, status: 500, keep: false }],
  [
    'HTTP/1.1 307 Temporary Redirect\r\nLocation: http://10.0.0.1/\r\nContent-Length: 0\r\n\r\n',
    { whole: true, status: 307, keep: true },
  ],
  // Framed by its coding and a length: read as chunked, not kept.
  [
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    { whole: true, status: 200, keep: false },
  ],
  // More than it said: not kept.
  ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok and more', { whole: true, status: 200, keep: false }],
];

describe('reading an answer', () => {
  it('reads status, end and whether to keep the connection, however the bytes are split', () => {
    for (const [answer, read] of ANSWERS) {
      expect(readInPieces(answer), answer).toEqual(read);
      // A byte at a time, as a receiver that dribbles its answer sends it.
      expect(
        readInPieces(
          answer,
          [...answer].map((_, index) => index),
        ),
        answer,
      ).toEqual(read);
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...ANSWERS),
        fc.array(fc.nat({ max: 400 }), { maxLength: 12 }),
        ([answer, read], cuts) => {
          expect(readInPieces(answer, cuts)).toEqual(read);
        },
      ),
    );
  });

  it('refuses what HTTP/1.1 does not frame so', () => {
    for (const answer of [
      'SMTP ready\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokay\r\n0\r\n\r\n',
    ]) {
      expect(() => readInPieces(answer), answer).toThrow(MalformedAnswer);
    }
  });
});

const servers: (TcpServer | tls.Server)[] = [];
const opened: ReceiverConnection[] = [];
afterEach(async () => {
  for (const connection of opened.splice(0)) connection.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

interface Heard {
  readonly connections: number;
  readonly requests: Buffer[];
}

/** A receiver answering each request (head and `content-length` body) with `answer`, noting what it heard. */
async function receiver(answer: string, secure?: { cert: string; key: string }): Promise<[URL, Heard]> {
  const heard = { connections: 0, requests: [] as Buffer[] };
  const serve = (socket: Socket): void => {
    heard.connections += 1;
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const length = Number(/content-length: (\d+)/.exec(pending.subarray(0, headEnd).toString())?.[1] ?? 0);
        const end = headEnd + 4 + length;
        if (pending.length < end) return;
        heard.requests.push(pending.subarray(0, end));
        pending = pending.subarray(end);
        socket.write(answer);
        if (answer.includes('Connection: close') || !/Content-Length|Transfer-Encoding|^HTTP\/1.1 204/.test(answer)) {
          socket.end();
        }
      }
    });
    socket.on('error', () => socket.destroy());
  };
  const server = secure === undefined ? createTcpServer(serve) : tls.createServer(secure, serve);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // A TCP server's address.
  return [new URL(`${secure === undefined ? 'http' : 'https'}://127.0.0.1:${port}/hooks/in?team=1`), heard];
}

function connectionTo(url: URL): ReceiverConnection {
  const connection = new ReceiverConnection({ url, address: '127.0.0.1' });
  opened.push(connection);
  return connection;
}

describe('a connection to a receiver', () => {
  it('sends the head and the body byte for byte', async () => {
    const [url, heard] = await receiver('HTTP/1.1 204 No Content\r\n\r\n');
    const body = JSON.stringify({ title: 'Füße, 東京, 🙂' });
    expect(await connectionTo(url).post({ 'webhook-id': 'msg_a_1' }, body)).toEqual({ status: 204, error: null });
    const request = heard.requests[0] ?? Buffer.alloc(0);
    const headEnd = request.indexOf('\r\n\r\n');
    expect(request.subarray(0, headEnd).toString().split('\r\n')).toEqual([
      'POST /hooks/in?team=1 HTTP/1.1',
      `host: 127.0.0.1:${url.port}`,
      'webhook-id: msg_a_1',
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
    ]);
    expect(request.subarray(headEnd + 4)).toEqual(Buffer.from(body));
  });

  it('keeps the connection after a chunked answer, and not after one that asks to close or runs to the close', async () => {
    const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n';
    for (const [answer, connections] of [
      [chunked, 1],
      ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok', 3],
      ['HTTP/1.1 200 OK\r\n\r\nto the end', 3],
      // The receiver keeps an idle connection for a second: too short to use again safely.
      ['HTTP/1.1 204 No Content\r\nKeep-Alive: timeout=1\r\n\r\n', 3],
    ] as const) {
      const [url, heard] = await receiver(answer);
      const connection = connectionTo(url);
      for (let index = 0; index < 3; index += 1) {
        expect((await connection.post({}, '{}')).status, answer).toBe(answer.includes('204') ? 204 : 200);
      }
      expect(heard.connections, answer).toBe(connections);
    }
  });

  it('fails a delivery whose answer is not HTTP, and uses a new connection for the next', async () => {
    const [url, heard] = await receiver('220 mail.example ESMTP\r\n\r\n');
    const connection = connectionTo(url);
    expect(await connection.post({}, '{}')).toEqual({ status: null, error: 'the answer is not HTTP/1.x' });
    expect(await connection.post({}, '{}')).toEqual({ status: null, error: 'the answer is not HTTP/1.x' });
    expect(heard.connections).toBe(2);
  });

  it("checks a TLS receiver's certificate against the URL's name", async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const [url, heard] = await receiver('HTTP/1.1 204 No Content\r\n\r\n', { cert: pems.cert, key: pems.private });
    const outcome = await connectionTo(url).post({}, '{}');
    expect(outcome.status).toBeNull();
    expect(outcome.error).toMatch(/self[- ]signed certificate/);
    expect(heard.requests).toHaveLength(0);
  });
});
