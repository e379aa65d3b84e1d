import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../e2e/support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  type ServeProcess,
} from '../e2e/support/processes.js';
import { expectError } from '../e2e/support/wire.js';

/** The gzip of the JavaScript sent to a browser may not pass this (WEB.md section 4). */
const SCRIPT_BUDGET_BYTES = 100 * 1024;

describe('the web app as the server serves it', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let server: ServeProcess;
  beforeAll(async () => {
    server = await startServe({ dataDir: await makeTempDir('web-serving'), http: true });
  });
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('serves the page uncached, with a policy that forbids inline scripts', async () => {
    const page = await request(server.origin, { path: '/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.text).toMatch(/<script type="module" crossorigin src="\/assets\/app-[\w-]+\.js"><\/script>/);
  });

  it('serves hashed assets for a year, gzip-compressed, within the script budget', async () => {
    const page = await request(server.origin, { path: '/' });
    const scripts = [...page.text.matchAll(/src="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1] ?? '');
    expect(scripts).toHaveLength(1);
    for (const script of scripts) {
      const plain = await request(server.origin, { path: script });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const gzipped = await request(server.origin, { path: script, headers: { 'accept-encoding': 'gzip' } });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(Number(gzipped.headers['content-length'])).toBeLessThan(SCRIPT_BUDGET_BYTES);
      expect(gzipped.text).toBe(plain.text);
    }
    const worker = await request(server.origin, { path: '/sw.js' });
    expect(worker.status).toBe(200);
    expect(worker.headers['cache-control']).toBe('no-cache');
  });

  it('serves an icon at /favicon.ico, which every page asks for, and the pages name it', async () => {
    const icon = await fetch(`${server.origin}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    expect(icon.headers.get('cache-control')).toBe('public, max-age=86400');
    const bytes = Buffer.from(await icon.arrayBuffer());
    // An icon directory (reserved 0, type 1, one image) holding a PNG.
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(bytes.subarray(22, 26).toString('latin1')).toBe('\x89PNG');
    for (const path of ['/', '/login']) {
      expect((await request(server.origin, { path })).text).toContain('<link rel="icon" href="/favicon.ico"');
    }
  });

  it('still answers E002 for every path it does not serve', async () => {
    for (const path of [
      '/index.html',
      '/assets/missing.js',
      '/assets/',
      '/login-nope',
      '/v2/tasks',
      '/assets/../package.json',
    ]) {
      expectError(await request(server.origin, { path }), 400, 'E002');
    }
    expectError(await request(server.origin, { path: '/', method: 'POST', body: {} }), 400, 'E002');
  });
});
