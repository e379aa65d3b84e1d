/**
 * The files of deploy/: the systemd unit is checked by systemd itself where `systemd-analyze` is
 * installed (skipped, saying so, where it is not); no container image can be built on the test
 * machine, so the Dockerfile and compose file are checked as text (and the compose file's
 * entrypoint run by sh); nginx.test.ts runs nginx with the nginx example. The files agree with
 * each other and with docs/operations.md: one port, one way to install.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('has an nginx example that ends TLS before the service, sets the forwarded headers and keeps /metrics private', () => {
    const nginx = read('nginx.conf');
    expect(upstreamPorts()).not.toEqual([]);
    expect(nginx).toMatch(/listen 443 ssl;/);
    expect(nginx).toContain('proxy_set_header Connection "";');
    expect(nginx).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    expect(nginx).toContain('proxy_set_header X-Forwarded-Host $http_host;');
    expect(nginx).toMatch(/location = \/metrics \{\s*return 404;/);
  });

  it('agree on one port: the unit, the image, the compose file and the nginx upstream', () => {
    const unitPort = /^Environment=TASK_SERVICE_PORT=(\d+)$/m.exec(read('task-service.service'))?.[1];
    const dockerfile = read('Dockerfile');
    const compose = read('compose.yaml');
    expect(unitPort).toBeDefined();
    expect(/TASK_SERVICE_PORT=(\d+)/.exec(dockerfile)?.[1]).toBe(unitPort);
    expect(dockerfile).toContain(`http://127.0.0.1:${unitPort}/readyz`);
    expect(/TASK_SERVICE_PORT: "(\d+)"/.exec(compose)?.[1]).toBe(unitPort);
    expect(compose).toContain(`"127.0.0.1:${unitPort}:${unitPort}"`);
    expect(upstreamPorts()).toEqual([unitPort]);
    // Behind that proxy, each believes its forwarded headers (and nobody else's).
    expect(read('task-service.service')).toMatch(/^Environment=TASK_SERVICE_TRUST_PROXY=127\.0\.0\.1$/m);
    expect(compose).toMatch(/TASK_SERVICE_TRUST_PROXY: "\S+"/);
  });

  it('say one way to install, the one docs/operations.md says', () => {
    const install = 'npm ci && npm prune --omit=dev';
    const operations = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
    const unitHeader = read('task-service.service').split('\n[Unit]')[0] ?? '';
    expect(unitHeader.replace(/\n# /g, ' ')).toContain(install);
    expect(operations.replaceAll('sudo ', '')).toContain(`cd /opt/task-service && ${install}`);
    expect(read('Dockerfile')).toContain(`RUN ${install}`);
    // Nowhere the other way, which skips the build's tools and so the build.
    for (const text of [unitHeader, operations, read('Dockerfile')]) expect(text).not.toMatch(/npm ci --omit=dev/);
  });

  it("gives every command of the compose file's container the database URL from the secret", () => {
    const compose = read('compose.yaml');
    const script = /^ {6}- 'TASK_SERVICE_DATABASE_URL=(.*)'$/m.exec(compose)?.[0].slice("      - '".length, -1) ?? '';
    expect(script).toContain('/run/secrets/postgres_password');
    // docs/operations.md runs the admin commands through the entrypoint, which adds the URL.
    const documented = 'docker compose -f deploy/compose.yaml run --rm task-service user add alice';
    expect(readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8')).toContain(documented);
    expect(compose).toMatch(/^ {4}command: \["serve"\]$/m);

    // The entrypoint as the container's sh runs it, with a node that prints what it was given.
    const folder = mkdtempSync(path.join(tmpdir(), 'task-service-compose-'));
    try {
      const secret = path.join(folder, 'postgres_password');
      writeFileSync(secret, 's3cret');
      const fakeNode = path.join(folder, 'node');
      writeFileSync(fakeNode, '#!/bin/sh\necho "$TASK_SERVICE_DATABASE_URL"\necho "$@"\n');
      chmodSync(fakeNode, 0o755);
      const shell = script.replaceAll('$$', '$').replaceAll('/run/secrets/postgres_password', secret);
      const ran = spawnSync('sh', ['-c', shell, 'task-service', 'user', 'add', 'alice'], {
        encoding: 'utf8',
        env: { PATH: `${folder}:${process.env['PATH'] ?? ''}` },
      });
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toBe('postgres://task_service:s3cret@postgres:5432/tasks\nbin/task-service.js user add alice\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/** The ports of the nginx example's upstream servers (the lines not commented out). */
function upstreamPorts(): string[] {
  const upstream = /upstream task_service \{([^}]*)\}/.exec(read('nginx.conf'))?.[1] ?? '';
  return [...upstream.matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)].map((match) => match[1] ?? '');
}
