import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToken, prepareStore, storeFlags } from './support/accounts.js';
import { oauth, request, type HttpResponse, type RequestOptions } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  parseLogLines,
  runCli,
  startServe,
} from './support/processes.js';
import { bodyOf, taskSchema } from './support/wire.js';

describe('the service log', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  it('is JSON lines, one per response, and never shows a token or a password', async () => {
    const dataDir = await makeTempDir('logs');
    const store = { dataDir };
    const password = 'Tr0ub4dor&3-e2e-secret';
    await prepareStore(store);
    const added = await runCli(['user', 'add', 'logger', '--password-stdin', ...storeFlags(store)], {
      stdin: `${password}\n`,
    });
    expect(added.code, added.stderr).toBe(0);
    const token = await createToken(store, 'logger');
    const readToken = await createToken(store, 'logger', ['--scope', 'read']);
    const unknownToken = 'Zm9yZ2VkLXRva2VuLXRoYXQtZG9lcy1ub3QtZXhpc3Q';

    const server = await startServe({ dataDir, http: true });
    const sent: { method: string; path: string; status: number }[] = [];
    const call = async (options: RequestOptions): Promise<HttpResponse> => {
      const response = await request(server.origin, options);
      const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
      sent.push({ method, path: new URL(options.path, server.origin).pathname, status: response.status });
      return response;
    };

    const created = bodyOf(
      await call({ path: `/v1/tasks?access_token=${token}`, body: { title: 'logged' } }),
      taskSchema,
    );
    expect((await call({ path: '/v1/tasks', headers: oauth(token) })).status).toBe(200);
    expect((await call({ path: '/v1/tasks', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await call({ path: `/v1/tasks?access_token=${token}` })).status).toBe(200);
    expect((await call({ path: `/v1/tasks/${created.id}?access_token=${token}` })).status).toBe(200);
    expect((await call({ path: `/v1/settings?access_token=${token}` })).status).toBe(200);
    expect((await call({ path: `/v1/tasks?access_token=${token}&bogus=1` })).status).toBe(400);
    expect((await call({ path: `/v1/tasks?access_token=${token}`, body: '{"title":' })).status).toBe(400);
    expect((await call({ path: `/v2/tasks?access_token=${token}` })).status).toBe(400);
    expect((await call({ path: '/v1/tasks', headers: oauth(readToken) })).status).toBe(200);
    expect((await call({ path: '/v1/tasks', headers: oauth(readToken), body: { title: 'no' } })).status).toBe(403);
    expect((await call({ path: `/v1/tasks?access_token=${unknownToken}` })).status).toBe(401);
    expect((await call({ path: '/v1/tasks', headers: oauth(unknownToken) })).status).toBe(401);
    expect((await call({ path: '/healthz' })).status).toBe(200);

    expect((await server.stop()).code).toBe(0);
    const stdout = server.stdout();
    const stderr = server.stderr();

    // JSON lines (pino): every line of standard output, nothing on standard error.
    expect(stderr).toBe('');
    const lines = parseLogLines(stdout);
    for (const line of lines) expect(line['pid']).toBe(server.child.pid);

    // One line per response, with the path but never the query. Each line is written once its
    // answer has gone out, so on a busy machine a line may come after the next request's: the
    // lines are compared as a set, not in order.
    const responses = lines.filter((line) => line.msg === 'response');
    const byText = (a: unknown, b: unknown): number => JSON.stringify(a).localeCompare(JSON.stringify(b));
    expect(
      responses
        .map((line) => ({ method: line['method'], path: line['path'], status: line['status'] }))
        .toSorted(byText),
    ).toEqual(sent.toSorted(byText));
    for (const line of responses) {
      expect(line.level).toBe(30);
      expect(typeof line['us']).toBe('number');
    }

    // No secret anywhere: not in the server's output, not in the admin commands' output.
    const everything = [stdout, stderr, added.stdout, added.stderr].join('\n');
    for (const secret of [token, readToken, unknownToken, password]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(0, 12));
      expect(everything).not.toContain(encodeURIComponent(secret));
    }

    // And not in the data folder either: tokens and passwords are stored as hashes only.
    const files = await readdir(dataDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = await readFile(path.join(dataDir, file));
      for (const secret of [token, readToken, password])
        expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });
});
