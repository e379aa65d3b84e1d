/** axe-core, the kept library, run in the page: the accessibility audit of the browser tests. */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** Given as text: the page's policy forbids inline scripts, not this. */
const AXE_SOURCE = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Finding {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/** The serious and critical findings of axe on the page as it is now (WCAG 2.1 A and AA). */
export async function audit(page: Page): Promise<Finding[]> {
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(await AXE_SOURCE);
  const findings: unknown = await page.evaluate(`(async () => {
    const result = await axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        targets: violation.nodes.map((node) => node.target.join(' ')),
      }));
  })()`);
  return findings as Finding[]; // The shape the page code above returns.
}
