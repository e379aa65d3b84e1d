/**
 * Issue #16 over a real socket, on both engines: what one hostile or clumsy client could do to
 * everyone through HTTP. A token is never echoed; /v1 answers are never cached on the way; a
 * client without a token does not get its gzip undone; logged paths are short; time-zone names
 * are stored in one spelling; E003 is the contract's message exactly; bodies still arriving do
 * not take the slots of work in flight, have a cap of their own and a minimum rate; one address
 * holds a bounded number of connections.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startHarness, type Harness, type User } from '../support/harness.js';
import { oauth, request, type HttpResponse } from '../e2e/support/http.js';
import { rawExchange } from '../reliability/support/raw-http.js';

const MAX_IN_FLIGHT = 8;
const MAX_WAITING_BODIES = 6;
const MAX_WAITING_WITHOUT_CREDENTIAL = 4;
const GRACE_MS = 500;
const MAX_CONNECTIONS_PER_ADDRESS = 40;

interface ErrorBody {
  readonly retcode: string;
  readonly retmsg: string;
  readonly reqdata: string;
}

function errorOf(answer: HttpResponse): ErrorBody {
  const parsed: unknown = JSON.parse(answer.text);
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    !('retcode' in parsed) ||
    !('retmsg' in parsed) ||
    !('reqdata' in parsed)
  ) {
    throw new Error(`not an error body: ${answer.text}`);
  }
  return { retcode: String(parsed.retcode), retmsg: String(parsed.retmsg), reqdata: String(parsed.reqdata) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(ENGINES)('hardening over a real socket on %s', (engine) => {
  let harness: Harness | undefined;
  let user: User | undefined;
  let origin = '';
  let port = 0;
  const logLines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((line) => line !== ''),
        );
        done();
      },
    });
    harness = await startHarness(engine, {
      app: {
        log: pino({ level: 'info' }, sink),
        loadLimits: { maxInFlight: MAX_IN_FLIGHT, maxEventLoopDelayMs: 5000 },
        bodyWaitLimits: {
          maxWaiting: MAX_WAITING_BODIES,
          maxWaitingWithoutCredential: MAX_WAITING_WITHOUT_CREDENTIAL,
          minBytesPerSecond: 1024,
          graceMs: GRACE_MS,
        },
        maxConnectionsPerAddress: MAX_CONNECTIONS_PER_ADDRESS,
      },
    });
    user = await harness.newUser();
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const address = harness.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    port = address.port;
    origin = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await harness?.close();
  });

  const token = (): string => user?.token ?? '';

  it('never echoes an access_token value in reqdata: it shows ***', async () => {
    const unknown = await request(origin, { path: '/v1/tasks?access_token=s3cr3t-value&x=1' });
    expect(unknown.status).toBe(401);
    expect(errorOf(unknown).reqdata).toBe('access_token=***&amp;x=1');
    const valid = await request(origin, { path: `/v1/tasks?sort=1&access_token=${token()}` });
    expect(errorOf(valid)).toEqual({
      retcode: 'E003',
      retmsg: 'parameter is not supported: sort',
      reqdata: 'sort=1&amp;access_token=***',
    });
    const encoded = await request(origin, { path: '/v1/tasks?access%5Ftoken=s3cr3t-value' });
    expect(errorOf(encoded).reqdata).toBe('access%5Ftoken=***');
    expect(unknown.text + valid.text + encoded.text).not.toContain('s3cr3t');
    expect(valid.text).not.toContain(token());
  });

  // Issue 21 item 4: every secret a client may send, on every path, in a query or a body.
  it('masks every secret in reqdata, on every path, keeping the rest', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const wrongPath = await request(origin, {
      method: 'POST',
      path: '/oauth/tokenx',
      headers: form,
      body: 'grant_type=authorization_code&client_id=abc&client_secret=s3cr3t-1&code=s3cr3t-2&code_verifier=s3cr3t-3',
    });
    expect(errorOf(wrongPath).reqdata).toBe(
      'grant_type=authorization_code&amp;client_id=abc&amp;client_secret=***&amp;code=***&amp;code_verifier=***',
    );
    const v1 = await request(origin, {
      method: 'POST',
      path: '/v1/tasks',
      headers: oauth(token()),
      body: '{"title": "x", "password": "s3cr3t-4", "refresh_token":"s3cr3t-5", "priority": 9}',
    });
    expect(errorOf(v1).reqdata).toBe(
      '{&quot;title&quot;: &quot;x&quot;, &quot;password&quot;: &quot;***&quot;, &quot;refresh_token&quot;:&quot;***&quot;, &quot;priority&quot;: 9}',
    );
    const query = await request(origin, { path: '/nowhere?token=s3cr3t-6&password=s3cr3t-7&q=kept' });
    expect(errorOf(query).reqdata).toBe('token=***&amp;password=***&amp;q=kept');
    // A value with an escaped quote is masked whole; a name only mentioned in a value is kept.
    const escaped = await request(origin, {
      method: 'POST',
      path: '/v1/nowhere',
      headers: oauth(token()),
      body: '{"access_token": "s3cr3t\\"-8", "title": "password=kept"}',
    });
    expect(errorOf(escaped).reqdata).toBe(
      '{&quot;access_token&quot;: &quot;***&quot;, &quot;title&quot;: &quot;password=kept&quot;}',
    );
    expect(wrongPath.text + v1.text + query.text + escaped.text).not.toContain('s3cr3t');
  });

  it('answers every /v1 request with Cache-Control: no-store, errors included', async () => {
    const answers = [
      await request(origin, { path: '/v1/tasks', headers: oauth(token()) }),
      await request(origin, { path: '/v1/settings', headers: oauth(token()) }),
      await request(origin, { path: '/v1/tasks', headers: oauth(token()), body: { title: 'cached?' } }),
      await request(origin, { path: '/v1/tasks' }),
      await request(origin, { path: '/v1/nothing', headers: oauth(token()) }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 401, 400]);
    for (const answer of answers) expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('answers E003 with exactly `parameter is not supported: <name>`, nothing after the name', async () => {
    const answer = await request(origin, {
      path: '/v1/tasks?updated_after=2026-01-01T00:00:00Z&cursor=c1.0',
      headers: oauth(token()),
    });
    expect(errorOf(answer).retmsg).toBe('parameter is not supported: cursor');
  });

  it('does not gunzip the body of a request without a valid token only to echo it', async () => {
    const post = async (body: Buffer, authorization: string): Promise<ErrorBody> => {
      const head = `POST /v1/tasks HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      const exchange = await rawExchange(port, Buffer.concat([Buffer.from(head, 'latin1'), body]));
      const answer = exchange.answers[0];
      if (answer === undefined) throw new Error('no answer');
      return errorOf({ status: answer.status, headers: answer.headers, text: answer.body });
    };
    expect(await post(gzipSync(Buffer.from('{"title":"zipped echo"}')), '')).toMatchObject({
      retcode: 'E401',
      reqdata: '',
    });
    expect(await post(gzipSync(Buffer.from('{"title":')), `Authorization: OAuth ${token()}\r\n`)).toMatchObject({
      retcode: 'E001',
      reqdata: '{&quot;title&quot;:',
    });
  });

  it('logs a long path cut short', async () => {
    const long = `/v1/tasks/${'p'.repeat(5000)}`;
    const answer = await request(origin, { path: long, headers: oauth(token()) });
    expect(answer.status).toBe(400);
    await sleep(100);
    const logged = logLines
      .map((line) => JSON.parse(line) as { path?: string })
      .filter((line) => line.path?.startsWith('/v1/tasks/ppp') === true);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line.path?.length).toBeLessThanOrEqual(257);
  });

  it('stores time-zone names in their canonical spelling only', async () => {
    for (const timezone of ['Asia/KOLKATA', 'Asia/KoLkata', 'ETC/UTC', 'Etc/utc', 'US/PACIFIC']) {
      const answer = await request(origin, { path: '/v1/settings', headers: oauth(token()), body: { timezone } });
      expect(errorOf(answer), timezone).toMatchObject({ retcode: 'E004' });
    }
    for (const timezone of ['Asia/Kolkata', 'Etc/UTC', 'US/Pacific', 'Asia/Ho_Chi_Minh', 'Europe/Berlin', 'UTC']) {
      const answer = await request(origin, { path: '/v1/settings', headers: oauth(token()), body: { timezone } });
      expect(answer.status, `${timezone}: ${answer.text}`).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({ timezone });
    }
  });

  it(
    'does not count bodies still arriving as work in flight: a cap of their own, a minimum rate',
    { timeout: 20_000 },
    async () => {
      const head = Buffer.from(
        `POST /v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        'latin1',
      );
      const drip = Array.from({ length: 30 }, () => Buffer.from(' ', 'latin1'));
      const tricklers = Array.from({ length: 3 * MAX_IN_FLIGHT }, () =>
        rawExchange(port, head, { parts: [head, ...drip], gapMs: 200, waitMs: 10_000 }),
      );
      await sleep(300);
      // Meanwhile others are served: the trickled bodies hold no slot of work in flight.
      const started = performance.now();
      for (let index = 0; index < 5; index += 1) {
        const answer = await request(origin, { path: '/v1/tasks?limit=1', headers: oauth(token()) });
        expect(answer.status, answer.text).toBe(200);
      }
      // And clients with a token still write: the trickled bodies, without one, have a share of their own.
      const write = await request(origin, {
        path: '/v1/tasks',
        headers: oauth(token()),
        body: { title: 'during the trickle' },
      });
      expect(write.status, write.text).toBe(200);
      // "Meanwhile": well before the trickle ends (30 gaps of 200 ms), with room for a busy machine.
      expect(performance.now() - started).toBeLessThan(4000);
      const exchanges = await Promise.all(tricklers);
      // Past the cap of bodies waiting: a fast E503 and a close. Within it: cut off for their rate.
      const refused = exchanges.filter((exchange) => exchange.answers.some((answer) => answer.status === 503));
      expect(refused.length).toBe(3 * MAX_IN_FLIGHT - MAX_WAITING_WITHOUT_CREDENTIAL);
      for (const exchange of exchanges) {
        expect(exchange.closed).toBe(true);
        expect(exchange.ms).toBeLessThan(GRACE_MS + 3000);
      }
      // A body that arrives at once is served as ever.
      const answer = await request(origin, {
        path: '/v1/tasks',
        headers: oauth(token()),
        body: { title: 'after the trickle' },
      });
      expect(answer.status, answer.text).toBe(200);
    },
  );

  it('closes connections past the cap for one address, and serves it again once they close', async () => {
    const sockets = await Promise.all(
      Array.from(
        { length: MAX_CONNECTIONS_PER_ADDRESS },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    await sleep(100);
    await expect(request(origin, { path: '/healthz', timeoutMs: 3000 })).rejects.toThrow();
    for (const socket of sockets) socket.destroy();
    await sleep(200);
    const answer = await request(origin, { path: '/healthz' });
    expect(answer.status).toBe(200);
  });
});
