/**
 * From a clean clone, the two ways the docs install it: the SDK as a tarball (docs/sdk.md:
 * `npm ci`, then `npm pack`, whose `prepack` builds, then `npm install <tarball>` in the app), and
 * the service for production (docs/operations.md; the unit's header and the Dockerfile say the
 * same: `npm ci && npm prune --omit=dev`). The clone is a copy of the repository's files without
 * dist/; `npm ci`'s install is this checkout's node_modules (hard links: npm here only removes,
 * and its record of the tree is copied whole, as npm rewrites it). The rest runs as documented:
 * the build, the pack, the install of the tarball (offline: the app starts with the clone's
 * packages, as npm's cache would give them), the prune, and the pruned copy serves.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../e2e/support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  REPO_ROOT,
  runNode,
  startServe,
} from '../e2e/support/processes.js';

/** A build, a pack and an install on a loaded two-core machine. */
const INSTALL_TIMEOUT_MS = 5 * 60_000;

/** The repository's files as a clone has them: tracked, and new ones not ignored (so no dist/). */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return listed.split('\0').filter((file) => file !== '' && existsSync(path.join(REPO_ROOT, file)));
}

/** The installed packages of this checkout, at `into`: hard links, npm's record of the tree a copy of its own. */
function linkPackages(into: string): void {
  execFileSync('cp', ['-al', path.join(REPO_ROOT, 'node_modules'), path.join(into, 'node_modules')]);
  const tree = path.join(into, 'node_modules', '.package-lock.json');
  rmSync(tree);
  copyFileSync(path.join(REPO_ROOT, 'node_modules', '.package-lock.json'), tree);
}

function npm(args: readonly string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
    timeout: INSTALL_TIMEOUT_MS,
  });
}

describe('installing from a clean clone', { timeout: INSTALL_TIMEOUT_MS }, () => {
  let clone: string;
  let tarball: string;
  beforeAll(async () => {
    clone = await makeTempDir('clone');
    for (const file of repositoryFiles()) {
      mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
      cpSync(path.join(REPO_ROOT, file), path.join(clone, file));
    }
    linkPackages(clone);
    expect(existsSync(path.join(clone, 'dist'))).toBe(false);
    // As docs/sdk.md says: prepack builds, so a clone packs whole whether built before or not.
    const packed = npm(['pack'], clone).trim().split('\n').at(-1) ?? '';
    tarball = path.join(clone, packed);
  }, INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('docs/sdk.md says how: npm ci, then npm pack, then npm install of the tarball', () => {
    const sdk = readFileSync(path.join(REPO_ROOT, 'docs', 'sdk.md'), 'utf8');
    expect(sdk).toContain('npm ci && npm pack');
    expect(sdk).toMatch(/npm install \S*task-service-\d+\.\d+\.\d+\.tgz/);
    expect(path.basename(tarball)).toMatch(/^task-service-\d+\.\d+\.\d+\.tgz$/);
  });

  it('the tarball installs into an app, which imports task-service/client and type-checks against it', async () => {
    const app = await makeTempDir('sdk-app');
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'sdk-app', version: '1.0.0', private: true, type: 'module' }),
    );
    linkPackages(app);
    rmSync(path.join(app, 'node_modules', '.package-lock.json'));
    npm(['install', tarball, '--offline', '--ignore-scripts'], app);
    const installed = path.join(app, 'node_modules', 'task-service');
    expect(existsSync(path.join(installed, 'dist', 'src', 'client', 'index.js'))).toBe(true);
    // What the package holds: the built code and the docs, never the sources or the tests.
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'dist', 'docs', 'package.json']);

    writeFileSync(
      path.join(app, 'main.ts'),
      [
        "import { parseQuickAdd, TaskServiceClient, type Task } from 'task-service/client';",
        "const client = new TaskServiceClient({ baseUrl: 'https://tasks.example.org', token: 't' });",
        "const titles = (tasks: readonly Task[]): string[] => tasks.map((task) => task.title);",
        "console.log(typeof client.tasks.save, parseQuickAdd('Buy milk #Home').title, titles([]).length);",
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        // The app's code checked against the package's types; the types themselves are checked by
        // the package's own build (and checking them here again takes most of a minute).
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: [],
          skipLibCheck: true,
        },
        files: ['main.ts'],
      }),
    );
    const typeScript = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await runNode([typeScript, '-p', app], { cwd: app, timeoutMs: E2E_TEST_TIMEOUT_MS });
    expect(checked.code, checked.stdout).toBe(0);

    writeFileSync(
      path.join(app, 'main.js'),
      "import { parseQuickAdd, TaskServiceClient } from 'task-service/client';\n" +
        "const client = new TaskServiceClient({ baseUrl: 'https://tasks.example.org', token: 't' });\n" +
        "console.log(typeof client.tasks.save, parseQuickAdd('Buy milk #Home').title);\n",
    );
    const ran = await runNode(['main.js'], { cwd: app });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('function Buy milk\n');
  });

  it('npm prune --omit=dev after the build leaves a clone that serves, web app and admin commands included', async () => {
    const documented = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
    expect(documented).toContain('sudo npm ci && sudo npm prune --omit=dev');
    npm(['prune', '--omit=dev', '--offline'], clone);
    // The dev tools are gone; what serve needs is not.
    for (const devTool of ['typescript', 'vite', 'vitest', 'eslint'])
      expect(existsSync(path.join(clone, 'node_modules', devTool)), devTool).toBe(false);

    const script = path.join(clone, 'bin', 'task-service.js');
    const dataDir = await makeTempDir('install-data');
    const migrated = await runNode([script, 'migrate', '--data-dir', dataDir], { cwd: clone });
    expect(migrated.code, migrated.stderr).toBe(0);
    const user = await runNode([script, 'user', 'add', 'alice', '--password-stdin', '--data-dir', dataDir], {
      cwd: clone,
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
