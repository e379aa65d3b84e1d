import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import {
  eventually,
  getTasks,
  newUser,
  openApp,
  postTask,
  startWebFixture,
  type WebFixture,
} from './support/browser.js';
import { audit, type Finding } from './support/axe.js';

describe(
  'accessibility: every view audited by axe, every action by keyboard',
  { timeout: 3 * E2E_TEST_TIMEOUT_MS },
  () => {
    let fixture: WebFixture;
    beforeAll(async () => {
      fixture = await startWebFixture();
    });
    afterAll(async () => {
      await fixture?.browser.close();
      await cleanUpProcesses();
    });

    async function seed(token: string): Promise<void> {
      const today = new Date().toISOString().slice(0, 10);
      await postTask(fixture, token, { title: 'Sort mail', tags: ['paper'], priority: 3 });
      await postTask(fixture, token, { title: 'Call plumber', attribute: 'next', context: '@phone', project: 'House' });
      await postTask(fixture, token, { title: 'Dentist', start_at: today, all_day: true, end_at: today });
      await postTask(fixture, token, { title: 'Learn cello', attribute: 'noplan' });
      await postTask(fixture, token, { title: 'Parcel', attribute: 'waiting' });
      await postTask(fixture, token, { title: 'Done thing', completed: today });
      await postTask(fixture, token, { title: 'Old thing', trashed: today });
    }

    it('finds nothing serious or critical in any view, light and dark, desktop and phone', async () => {
      const token = await newUser(fixture);
      await seed(token);
      const { page, context, problems } = await openApp(fixture, token);
      await page.getByRole('checkbox', { name: 'Complete Sort mail' }).waitFor();
      const views = {
        inbox: 'Inbox',
        next: 'Next',
        scheduled: 'Scheduled',
        someday: 'Someday',
        waiting: 'Waiting',
        completed: 'Completed',
        trash: 'Trash',
        settings: 'Settings',
        labels: 'Projects and contexts',
      };
      // The audit sees what it should: a nameless button and faint text are found.
      await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<div id="bad"><button></button><p class="bad">faint</p></div>');
      Object.assign(document.querySelector('#bad .bad').style, { color: '#ccc', background: '#fff' });`);
      expect((await audit(page)).map((finding) => finding.id).sort()).toEqual(['button-name', 'color-contrast']);
      await page.evaluate(`document.getElementById('bad').remove()`);
      const report: Record<string, Finding[]> = {};
      const check = async (name: string): Promise<void> => {
        report[name] = await audit(page);
      };
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [view, name] of Object.entries(views)) {
          await page.evaluate(`location.hash = '#/${view}'`);
          await page.getByRole('heading', { name, level: 1, exact: true }).waitFor();
          await check(`${scheme} ${view}`);
        }
        await page.evaluate(`location.hash = '#/inbox'`);
        await page.getByRole('navigation').getByRole('link', { name: 'House' }).click();
        await check(`${scheme} project`);
        await page.getByRole('navigation').getByRole('link', { name: '@phone' }).click();
        await check(`${scheme} context`);
        await page.getByRole('searchbox', { name: 'Search' }).fill('thing');
        await page.getByRole('list', { name: 'Search results' }).waitFor();
        await check(`${scheme} search`);
        await page.getByRole('searchbox', { name: 'Search' }).fill('');
        await page
          .getByRole('navigation')
          .getByRole('link', { name: /^Inbox/ })
          .click();
        await page.getByRole('button', { name: 'Sort mail', exact: true }).click();
        await check(`${scheme} details`);
        await page.getByRole('region', { name: 'Task details' }).getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('alertdialog').waitFor();
        await check(`${scheme} delete question`);
        await page.keyboard.press('Escape');
        await page.getByRole('checkbox', { name: 'Complete Parcel' }).waitFor({ state: 'detached' });
        await page.getByRole('checkbox', { name: 'Complete Sort mail' }).click();
        await page.getByRole('status').filter({ hasText: 'Completed “Sort mail”' }).waitFor();
        await check(`${scheme} undo message`);
        await page.getByRole('button', { name: 'Undo' }).click();
        await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
        await check(`${scheme} help`);
        await page.keyboard.press('Escape');
        await page.getByRole('button', { name: 'Close details' }).click();
        await page.setViewportSize({ width: 375, height: 740 });
        await page.getByRole('button', { name: 'Menu', exact: true }).click();
        await page.getByRole('navigation').waitFor();
        await check(`${scheme} phone menu`);
        await page.keyboard.press('Escape');
        await page.setViewportSize({ width: 1200, height: 800 });
      }
      expect(Object.entries(report).filter(([, findings]) => findings.length > 0)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('does every action by keyboard: add, search, select, complete, undo, open, edit, move, trash, delete, help, menu', async () => {
      const token = await newUser(fixture);
      await postTask(fixture, token, { title: 'First' });
      const { page, context, problems } = await openApp(fixture, token);
      await page.getByRole('checkbox', { name: 'Complete First' }).waitFor();
      const keys = page.keyboard;
      await page.locator('body').focus();

      await keys.press('n');
      await keys.type('Second #Home');
      await keys.press('Enter');
      await page.getByRole('checkbox', { name: 'Complete Second' }).waitFor();
      await keys.press('Escape');

      await keys.press('/');
      await keys.type('first');
      await page.getByRole('list', { name: 'Search results' }).waitFor();
      await keys.press('Escape');
      await page.getByRole('list', { name: 'Inbox' }).waitFor();

      await keys.press('j');
      await keys.press('j');
      await keys.press('x');
      const done = page.getByRole('status').filter({ hasText: 'Completed “First”' });
      await done.waitFor();
      await keys.press('Control+z');
      await page.getByRole('checkbox', { name: 'Complete First' }).waitFor();
      await eventually(async () =>
        expect((await getTasks(fixture, token)).find((task) => task.title === 'First')?.completed).toBeNull(),
      );

      await keys.press('e');
      const details = page.getByRole('region', { name: 'Task details' });
      await details.waitFor();
      await details.getByLabel('Title').focus();
      await keys.press('Control+a');
      await keys.type('First, renamed');
      await keys.press('Tab');
      await page.getByRole('checkbox', { name: 'Complete First, renamed' }).waitFor();
      await details.getByLabel('Box').focus();
      await keys.press('ArrowDown');
      await page.getByRole('status').filter({ hasText: 'Moved “First, renamed” to Next' }).waitFor();
      await details.getByRole('button', { name: 'Move to trash' }).focus();
      await keys.press('Enter');
      await details.getByRole('button', { name: 'Restore' }).waitFor();
      await details.getByRole('button', { name: 'Delete' }).focus();
      await keys.press('Enter');
      const question = page.getByRole('alertdialog', { name: 'Delete this task?' });
      await question.waitFor();
      // Cancel has the focus: Tab to Delete for good.
      await keys.press('Tab');
      await keys.press('Enter');
      await eventually(async () =>
        expect((await getTasks(fixture, token)).map((task) => task.title)).toEqual(['Second']),
      );

      await page.locator('body').focus();
      await keys.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await keys.press('Escape');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'detached' });
      await keys.press('2');
      await page.getByRole('heading', { name: 'Next', level: 1 }).waitFor();

      await page.setViewportSize({ width: 375, height: 740 });
      await page.getByRole('button', { name: 'Menu', exact: true }).focus();
      await keys.press('Enter');
      const nav = page.getByRole('navigation');
      await nav.waitFor();
      // The menu takes the focus, on the current view's link; Tab moves on, Enter follows.
      await keys.press('Tab');
      await keys.press('Enter');
      await page.getByRole('heading', { name: 'Scheduled', level: 1 }).waitFor();
      await nav.waitFor({ state: 'hidden' });
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
