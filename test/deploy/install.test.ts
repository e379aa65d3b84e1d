/**
 * The one way to install for production (docs/operations.md, "Install with systemd"; the unit's
 * header and the Dockerfile say the same): `npm ci && npm prune --omit=dev`. `npm ci` is the
 * install this checkout already had plus the build (`npm test` builds before vitest), so a copy of
 * the repository's files gets a copy of both; then the documented `npm prune --omit=dev` runs for
 * real, and the pruned copy must still serve, the web app and the admin commands included:
 * nothing the running service needs may be a dev dependency.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from '../e2e/support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  REPO_ROOT,
  runNode,
  startServe,
} from '../e2e/support/processes.js';

/** The repository's files as a clone has them: tracked, and new ones not ignored. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return listed.split('\0').filter((file) => file !== '' && existsSync(path.join(REPO_ROOT, file)));
}

describe('installing for production', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('npm prune --omit=dev after the build leaves a copy that serves, web app and admin commands included', async () => {
    const copy = await makeTempDir('install');
    for (const file of repositoryFiles()) {
      mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      cpSync(path.join(REPO_ROOT, file), path.join(copy, file));
    }
    // What npm ci made here: the packages (hard links: prune only removes, and its own record of
    // the tree is copied whole, as npm rewrites it) and the build.
    execFileSync('cp', ['-al', path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules')]);
    const tree = path.join(copy, 'node_modules', '.package-lock.json');
    rmSync(tree);
    copyFileSync(path.join(REPO_ROOT, 'node_modules', '.package-lock.json'), tree);
    cpSync(path.join(REPO_ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });

    const documented = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
    expect(documented).toContain('sudo npm ci && sudo npm prune --omit=dev');
    execFileSync('npm', ['prune', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
      cwd: copy,
      stdio: 'pipe',
      timeout: E2E_TEST_TIMEOUT_MS,
    });
    // The dev tools are gone; what serve needs is not.
    for (const devTool of ['typescript', 'vite', 'vitest', 'eslint'])
      expect(existsSync(path.join(copy, 'node_modules', devTool)), devTool).toBe(false);

    const script = path.join(copy, 'bin', 'task-service.js');
    const dataDir = await makeTempDir('install-data');
    const migrated = await runNode([script, 'migrate', '--data-dir', dataDir], { cwd: copy });
    expect(migrated.code, migrated.stderr).toBe(0);
    const user = await runNode([script, 'user', 'add', 'alice', '--password-stdin', '--data-dir', dataDir], {
      cwd: copy,
      stdin: 'a long passphrase\n',
    });
    expect(user.code, user.stderr).toBe(0);

    for (const format of ['json', 'pretty']) {
      const server = await startServe({ dataDir, http: true, script, args: ['--log-format', format] });
      const page = await request(server.origin, { path: '/' });
      expect(page.status).toBe(200);
      expect(page.text).toContain('<div id="app">');
      expect((await server.stop()).code).toBe(0);
      expect(server.stderr()).toBe('');
    }
  });
});
