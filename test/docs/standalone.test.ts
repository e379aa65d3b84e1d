/**
 * The documentation stands alone and answers a newcomer's first questions (issue #10, item 10):
 * it cites no file outside the repository, and the README says which Node versions run it, what
 * the EBADENGINE warning of `npm ci` means, and how to stop the server.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../e2e/support/processes.js';

const documents = [
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];

describe('the documentation', () => {
  it.each(documents)('%s cites no file outside the repository', (document) => {
    const text = readFileSync(path.join(REPO_ROOT, document), 'utf8');
    expect(text).not.toMatch(/\bshared\/(seed|spec)\b/);
    // Every relative link names a file of the repository.
    for (const [, target = ''] of text.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)) {
      expect(() => readFileSync(path.resolve(REPO_ROOT, path.dirname(document), target)), `${document} → ${target}`).not.toThrow();
    }
  });

  it('the README names the supported Node versions, the EBADENGINE warning and how to stop the server', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(/Node\.js 20\.19 or later, 22 or 24/);
    expect(readme).toContain('EBADENGINE');
    expect(readme).toContain('Ctrl-C stops it');
    expect(readme).toMatch(/real certificate/i);
  });
});
