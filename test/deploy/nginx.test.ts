/**
 * deploy/nginx.conf in front of the service as deploy/task-service.service runs it: Debian's nginx
 * (`/usr/sbin/nginx`, installed by .ci/run) with the file as it is, only its ports, addresses and
 * certificate paths put to the test's own, as a foreground process with its prefix, pid and temp
 * folders in a temp folder. A person signs in through it; the service names itself https (OAuth
 * metadata) and keeps its cookies Secure, although it serves plain HTTP behind nginx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, describe, expect, it } from 'vitest';
import { addUserWithPassword } from '../e2e/support/auth-server.js';
import { jsonOf, request } from '../e2e/support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  freePort,
  makeTempDir,
  REPO_ROOT,
  startServe,
  waitFor,
} from '../e2e/support/processes.js';
import { WebSession } from '../e2e/support/web-session.js';

const NGINX = '/usr/sbin/nginx';
const DEPLOY = path.join(REPO_ROOT, 'deploy');

/** The unit's `Environment=NAME=value` lines. */
async function unitEnvironment(): Promise<Record<string, string>> {
  const unit = await readFile(path.join(DEPLOY, 'task-service.service'), 'utf8');
  return Object.fromEntries([...unit.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)].map((match) => [match[1], match[2]]));
}

interface Ports {
  readonly service: number;
  readonly http: number;
  readonly https: number;
}

/** deploy/nginx.conf with the test's ports, addresses and certificate, and nothing else changed. */
async function siteConfig(ports: Ports, certFile: string, keyFile: string): Promise<string> {
  const original = await readFile(path.join(DEPLOY, 'nginx.conf'), 'utf8');
  const replace = (text: string, from: RegExp, to: string): string => {
    expect(text, `deploy/nginx.conf has ${from}`).toMatch(from);
    return text.replace(from, to);
  };
  let site = original;
  site = replace(site, /^(\s*server 127\.0\.0\.1:)8080( .*;)$/m, `$1${ports.service}$2`);
  site = replace(site, /^\s*listen \[::\]:80;\n/m, '');
  site = replace(site, /^\s*listen \[::\]:443 ssl;\n/m, '');
  site = replace(site, /^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${ports.http};`);
  site = replace(site, /^(\s*)listen 443 ssl;$/m, `$1listen 127.0.0.1:${ports.https} ssl;`);
  site = replace(site, /^(\s*ssl_certificate\s+)\S+;$/m, `$1${certFile};`);
  site = replace(site, /^(\s*ssl_certificate_key\s+)\S+;$/m, `$1${keyFile};`);
  return site;
}

/** nginx's own file around the site: one foreground process, everything it writes in `dir`. */
function mainConfig(dir: string): string {
  return [
    'daemon off;',
    'master_process off;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 64; }',
    'http {',
    `  access_log ${dir}/access.log;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind}-temp;`),
    `  include ${dir}/site.conf;`,
    '}',
    '',
  ].join('\n');
}

let nginx: ChildProcess | undefined;

async function startNginx(dir: string): Promise<void> {
  const child = spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  nginx = child;
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const pidFile = path.join(dir, 'nginx.pid');
  await waitFor(() => existsSync(pidFile) || child.exitCode !== null, 15_000);
  if (child.exitCode !== null) {
    const log = await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '');
    throw new Error(`nginx exited (${child.exitCode}):\n${output}\n${log}`);
  }
}

describe.skipIf(!existsSync(NGINX))('deploy/nginx.conf in front of the service', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    if (nginx !== undefined && nginx.exitCode === null) {
      const gone = new Promise((resolve) => nginx?.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await gone;
    }
    await cleanUpProcesses();
  });

  it('signs a person in through nginx: https in the OAuth metadata, Secure cookies, http redirected', async () => {
    const dataDir = await makeTempDir('nginx-data');
    const dir = await makeTempDir('nginx');
    const environment = await unitEnvironment();
    expect(environment['TASK_SERVICE_TRUST_PROXY']).toBe('127.0.0.1');
    // The unit's settings; only the port, the data folder and what a test must not wait for differ.
    const env = Object.fromEntries(
      Object.entries(environment).filter(
        ([name]) => name !== 'TASK_SERVICE_METRICS_PORT' && name !== 'TASK_SERVICE_DRAIN_DELAY',
      ),
    );
    const server = await startServe({ dataDir, http: true, env });
    await addUserWithPassword({ dataDir }, 'proxied', 'a long passphrase');

    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
      ],
    });
    const certFile = path.join(dir, 'cert.pem');
    const keyFile = path.join(dir, 'key.pem');
    await writeFile(certFile, pems.cert);
    await writeFile(keyFile, pems.private, { mode: 0o600 });
    const ports: Ports = { service: server.port, http: await freePort(), https: await freePort() };
    await writeFile(path.join(dir, 'site.conf'), await siteConfig(ports, certFile, keyFile));
    await writeFile(path.join(dir, 'nginx.conf'), mainConfig(dir));
    await startNginx(dir);

    const origin = `https://127.0.0.1:${ports.https}`;
    const metadata = jsonOf(
      await request(origin, { path: '/.well-known/oauth-authorization-server', ca: pems.cert }),
    );
    expect(metadata).toMatchObject({ issuer: origin, token_endpoint: `${origin}/oauth/token` });

    const browser = new WebSession(origin, pems.cert);
    const signedIn = await browser.signInAt('/login', 'proxied', 'a long passphrase');
    expect(signedIn.status, signedIn.text).toBe(303);
    const cookies = signedIn.headers['set-cookie'] ?? [];
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*Secure/i);
    const account = await browser.get('/account/session');
    expect(account.status, account.text).toBe(200);
    expect(account.text).toContain('proxied');

    // Straight to the service (no proxy in between), the same requests are plain http, as they are.
    const direct = jsonOf(await request(server.origin, { path: '/.well-known/oauth-authorization-server' }));
    expect(direct).toMatchObject({ issuer: server.origin });

    const plain = await request(`http://127.0.0.1:${ports.http}`, { path: '/login' });
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toMatch(/^https:\/\/127\.0\.0\.1\/login$/);
  });
});
