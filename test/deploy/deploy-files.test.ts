/**
 * The files of deploy/: the systemd unit is checked by systemd itself where `systemd-analyze` is
 * installed (skipped, saying so, where it is not); no container image can be built on the test
 * machine, so the Dockerfile and compose file are checked as text, as is the nginx example (nginx
 * is not installed there either).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS, type FlagSpec } from '../../src/config/flags.js';
import { REPO_ROOT } from '../e2e/support/processes.js';

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const read = (name: string): string => readFileSync(path.join(DEPLOY, name), 'utf8');

function installed(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
}

const KNOWN_VARIABLES = new Set(Object.values(FLAGS).flatMap((flag: FlagSpec) => flag.env ?? []));

describe('deploy/', () => {
  it.skipIf(!installed('systemd-analyze'))('has a systemd unit that systemd-analyze verifies without a warning', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'task-service-unit-'));
    try {
      const unit = path.join(folder, 'task-service.service');
      copyFileSync(path.join(DEPLOY, 'task-service.service'), unit);
      const verified = spawnSync('systemd-analyze', ['verify', '--man=no', unit], { encoding: 'utf8', timeout: 60_000 });
      expect(verified.status, verified.stderr).toBe(0);
      // It exits 0 on unknown keys and bad values too, warning on standard error.
      expect(verified.stderr).toBe('');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.each(['task-service.service', 'Dockerfile', 'compose.yaml'])(
    '%s sets only variables task-service reads, and runs a command that exists',
    (name) => {
      const text = read(name);
      const variables = [...text.matchAll(/\b(TASK_SERVICE_[A-Z_]+)\b/g)].map((match) => match[1] ?? '');
      expect(variables.length).toBeGreaterThan(0);
      expect(variables.filter((variable) => !KNOWN_VARIABLES.has(variable))).toEqual([]);
      expect(text).toContain('bin/task-service.js');
      expect(existsSync(path.join(REPO_ROOT, 'bin', 'task-service.js'))).toBe(true);
    },
  );

  it('has a Dockerfile that runs as a user, checks /readyz and stops on SIGTERM', () => {
    const dockerfile = read('Dockerfile');
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1] ?? '');
    expect(bases.length).toBeGreaterThan(0);
    // A Node release the project supports, by major version, never "latest".
    for (const base of bases) expect(base).toMatch(/^node:(20|22|24)-[a-z]+-slim$/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK[\s\S]*\/readyz/m);
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(dockerfile).toMatch(/npm ci/);
    expect(read('Dockerfile.dockerignore')).toMatch(/^node_modules$/m);
  });

  it('has a compose file with PostgreSQL that starts the service once the database is healthy', () => {
    const compose = read('compose.yaml');
    expect(compose).toMatch(/^ {2}postgres:\n {4}image: postgres:\d+/m);
    expect(compose).toMatch(/healthcheck:\n\s+test: \["CMD", "pg_isready"/);
    expect(compose).toMatch(/depends_on:\n\s+postgres:\n\s+condition: service_healthy/);
    expect(compose).toContain('TASK_SERVICE_DATABASE_URL=');
    // Published on the host's loopback only; no password written in the file.
    for (const [, published] of compose.matchAll(/^\s+- "([^"]+)"$/gm)) expect(published).toMatch(/^127\.0\.0\.1:/);
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:/);
    expect(compose).toContain('POSTGRES_PASSWORD_FILE');
  });

  it('has an nginx example that ends TLS before several processes and keeps /metrics private', () => {
    const nginx = read('nginx.conf');
    const upstream = /upstream task_service \{([^}]*)\}/.exec(nginx)?.[1] ?? '';
    expect([...upstream.matchAll(/^\s*server 127\.0\.0\.1:\d+/gm)].length).toBeGreaterThanOrEqual(2);
    expect(nginx).toMatch(/listen 443 ssl;/);
    expect(nginx).toContain('proxy_set_header Connection "";');
    expect(nginx).toMatch(/location = \/metrics \{\s*return 404;/);
  });
});
