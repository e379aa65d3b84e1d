import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskServiceClient } from '../../src/client/index.js';
import { addUser, createToken, storeFlags, type StoreArgs } from './support/accounts.js';
import { expectOneLine } from './support/one-line.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startServe,
  type ServeProcess,
} from './support/processes.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// The account, client and token commands of ACCOUNTS.md, run while a `serve` uses the same store.
describe('task-service user, client and token management commands', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let store: StoreArgs;
  let server: ServeProcess;

  beforeAll(async () => {
    store = { dataDir: await makeTempDir('auth-cli') };
    server = await startServe({ dataDir: store.dataDir, http: true });
  });
  afterAll(async () => {
    await cleanUpProcesses();
  });

  const cli = (args: readonly string[], stdin?: string) =>
    runCli([...args, ...storeFlags(store)], stdin === undefined ? {} : { stdin });

  it('user list shows name, state, created and zone, never a secret; enable undoes disable', async () => {
    const added = await cli(['user', 'add', 'lister', '--password-stdin', '--timezone', 'Asia/Tokyo'], 'pa55word\n');
    expect(added.code, added.stderr).toBe(0);
    await cli(['user', 'disable', 'lister']);
    let listed = await cli(['user', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.stdout.split('\n').find((row) => row.startsWith('lister\t'));
    const [name, state, created, zone, ...rest] = (line ?? '').split('\t');
    expect({ name, state, zone, rest }).toEqual({ name: 'lister', state: 'disabled', zone: 'Asia/Tokyo', rest: [] });
    expect(created).toMatch(ISO);
    expect(listed.stdout).not.toContain('argon2');

    const enabled = await cli(['user', 'enable', 'lister']);
    expect(enabled.code, enabled.stderr).toBe(0);
    listed = await cli(['user', 'list']);
    expect(listed.stdout).toMatch(/^lister\tenabled\t/m);
    expect((await cli(['user', 'enable', 'nobody'])).code).toBe(2);
  });

  it('user passwd reads the new password from stdin, refuses an empty one and an unknown user', async () => {
    await addUser(store, 'changer');
    const changed = await cli(['user', 'passwd', 'changer', '--password-stdin'], 'new secret\n');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toBe('');
    const empty = await cli(['user', 'passwd', 'changer', '--password-stdin'], '\n');
    expect(empty.code).toBe(2);
    // Issue 21 item 6: the web form's rule, at least 8 characters, said the same way.
    const short = await cli(['user', 'passwd', 'changer', '--password-stdin'], 'abc\n');
    expectOneLine(short, /^task-service: a password has at least 8 characters$/, 2);
    const shortNew = await cli(['user', 'add', 'shorty', '--password-stdin'], 'abc\n');
    expectOneLine(shortNew, /^task-service: a password has at least 8 characters$/, 2);
    const unknown = await cli(['user', 'passwd', 'ghost', '--password-stdin'], 'long enough\n');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no such user: ghost');
    // Not a terminal and no --password-stdin: a clear refusal rather than a hang.
    const noTerminal = await cli(['user', 'passwd', 'changer']);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toContain('--password-stdin');
  });

  it('client add prints the id, then the secret of a confidential client, and nothing else', async () => {
    const confidential = await cli(['client', 'add', 'Web app', '--redirect-uri', 'https://app.example/cb']);
    expect(confidential.code, confidential.stderr).toBe(0);
    expect(confidential.stdout).toMatch(/^[0-9a-f]{24}\n[0-9a-f]{64}\n$/);
    const publicClient = await cli(['client', 'add', 'CLI', '--redirect-uri', 'http://127.0.0.1/cb', '--public']);
    expect(publicClient.stdout).toMatch(/^[0-9a-f]{24}\n$/);
    const legacy = await cli([
      'client',
      'add',
      'Vim',
      '--redirect-uri',
      'https://a.example/x',
      '--redirect-uri',
      'https://b.example/y',
      '--legacy-implicit',
    ]);
    const [legacyId] = legacy.stdout.split('\n');

    const listed = await cli(['client', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(
      `${legacyId}\tVim\tconfidential\tlegacy-implicit\thttps://a.example/x https://b.example/y\n`,
    );
    expect(listed.stdout).toMatch(/\tCLI\tpublic\t-\thttp:\/\/127\.0\.0\.1\/cb\n/);
    // The secret is shown once: the list has only ids, names and URIs.
    expect(listed.stdout).not.toContain(confidential.stdout.split('\n')[1]);

    expect((await cli(['client', 'remove', legacyId ?? ''])).code).toBe(0);
    expect((await cli(['client', 'list'])).stdout).not.toContain(legacyId);
    const again = await cli(['client', 'remove', legacyId ?? '']);
    expect(again.code).toBe(2);
  });

  it('client add refuses a missing or relative redirect URI', async () => {
    expect((await cli(['client', 'add', 'X'])).code).toBe(2);
    const relative = await cli(['client', 'add', 'X', '--redirect-uri', '/cb']);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toContain('/cb');
    const fragment = await cli(['client', 'add', 'X', '--redirect-uri', 'https://a.example/cb#x']);
    expect(fragment.code).toBe(2);
    // Issue 21 item 6: a script is no redirect URI, said in one line.
    const script = await cli(['client', 'add', 'X', '--redirect-uri', 'javascript:alert(1)']);
    expectOneLine(script, /^task-service: a redirect URI is https:, .*: javascript:alert\(1\)$/, 2);
  });

  it('token list shows id, name, scope, client, dates and state; revoke by id and by name end them at once', async () => {
    await addUser(store, 'holder');
    const laptop = await createToken(store, 'holder', ['--name', 'laptop']);
    const phone = await createToken(store, 'holder', ['--name', 'phone', '--scope', 'read', '--expires-in', '7']);
    const phone2 = await createToken(store, 'holder', ['--name', 'phone']);
    const sdk = (token: string) => new TaskServiceClient({ baseUrl: server.origin, token, retry: { retries: 0 } });
    expect(await sdk(laptop).tasks.all()).toEqual([]);

    // Uses are written in the background, within a few seconds: wait until the list shows it.
    let listed = await cli(['token', 'list', 'holder']);
    const deadline = Date.now() + 10_000;
    while (!/\tlaptop\t[^\n]*\t\d{4}-[^\t]*\t\d{4}-/.test(listed.stdout) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      listed = await cli(['token', 'list', 'holder']);
    }
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((row) => row.split('\t'));
    expect(rows).toHaveLength(3);
    const laptopRow = rows.find((row) => row[1] === 'laptop') ?? [];
    expect(laptopRow[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(laptopRow.slice(2, 4)).toEqual(['write', '-']);
    expect(laptopRow[4]).toMatch(ISO);
    expect(laptopRow[5]).toMatch(ISO); // used just now
    expect(laptopRow.slice(6)).toEqual(['never', 'live']);
    const phoneRow = rows.find((row) => row[1] === 'phone' && row[2] === 'read') ?? [];
    expect(phoneRow[5]).toBe('never');
    expect(phoneRow[6]).toMatch(ISO);
    for (const secret of [laptop, phone, phone2]) expect(listed.stdout).not.toContain(secret);

    const byId = await cli(['token', 'revoke', '--id', laptopRow[0] ?? '']);
    expect(byId.code, byId.stderr).toBe(0);
    await expect(sdk(laptop).tasks.all()).rejects.toMatchObject({ retcode: 'E401' });

    const byName = await cli(['token', 'revoke', 'holder', '--name', 'phone']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stderr).toContain('2 tokens revoked');
    for (const token of [phone, phone2])
      await expect(sdk(token).tasks.all()).rejects.toMatchObject({ retcode: 'E401' });
    const states = (await cli(['token', 'list', 'holder'])).stdout
      .trim()
      .split('\n')
      .map((row) => row.split('\t')[7]);
    expect(states).toEqual(['revoked', 'revoked', 'revoked']);

    expect((await cli(['token', 'revoke', '--id', 'ffffffffffffffff'])).code).toBe(2);
    expect((await cli(['token', 'revoke', 'holder', '--name', 'phone'])).code).toBe(2);
    expect((await cli(['token', 'revoke', '--id', 'x', '--name', 'y'])).code).toBe(2);
  });
});
