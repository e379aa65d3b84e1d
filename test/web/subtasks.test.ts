import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import { audit } from './support/axe.js';
import {
  eventually,
  getTasks,
  newUser,
  openApp,
  postTask,
  startWebFixture,
  type WebFixture,
} from './support/browser.js';

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 740 },
] as const;

/** Where a task's title starts on screen: a subtask's is further right than its parent's. */
async function indentOf(page: Page, title: string): Promise<number> {
  const box = await page.getByRole('button', { name: title, exact: true }).boundingBox();
  return box?.x ?? NaN;
}

/** Waits until the named task's title has the focus (j and k focus it once the list is drawn). */
async function focusedOn(page: Page, title: string): Promise<void> {
  await eventually(async () => expect(await page.evaluate('document.activeElement?.textContent')).toBe(title));
}

describe('subtasks and reminders in the web app (WEB.md 1b)', { timeout: 3 * E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  for (const size of WIDTHS) {
    it(`shows, collapses, indents, drags and edits reminders at ${size.width} px`, async () => {
      const token = await newUser(fixture);
      const milk = await postTask(fixture, token, { title: 'Buy milk' });
      const trip = await postTask(fixture, token, { title: 'Plan trip', project: 'Travel' });
      const flights = await postTask(fixture, token, { title: 'Book flights', parent_id: trip.id });
      await postTask(fixture, token, { title: 'Pack bags', parent_id: trip.id });
      const { page, context, problems } = await openApp(fixture, token);
      await page.setViewportSize({ width: size.width, height: size.height });
      const inbox = page.getByRole('list', { name: 'Inbox' });
      const details = page.getByRole('region', { name: 'Task details' });

      // Indented under the parent, with a count, collapsible; the state survives a reload.
      await inbox.getByRole('checkbox', { name: 'Complete Book flights' }).waitFor();
      expect(await indentOf(page, 'Book flights')).toBeGreaterThan(await indentOf(page, 'Plan trip'));
      await inbox.getByText('0 of 2 subtasks done').waitFor({ state: 'attached' });
      await inbox.getByRole('button', { name: 'Collapse Plan trip' }).click();
      await inbox.getByRole('checkbox', { name: 'Complete Book flights' }).waitFor({ state: 'detached' });
      await page.reload();
      await inbox.getByRole('button', { name: 'Expand Plan trip' }).waitFor();
      expect(await inbox.getByRole('checkbox', { name: 'Complete Pack bags' }).count()).toBe(0);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await audit(page)).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await inbox.getByRole('button', { name: 'Expand Plan trip' }).click();
      await inbox.getByRole('checkbox', { name: 'Complete Pack bags' }).waitFor();

      // Indent and outdent by the details' buttons (touch): the server takes the parent.
      await inbox.getByRole('button', { name: 'Buy milk', exact: true }).click();
      await details.getByRole('button', { name: 'Indent' }).click();
      await eventually(async () => {
        const stored = (await getTasks(fixture, token)).find((task) => task.id === milk.id);
        expect(stored).toMatchObject({ parent_id: trip.id, project: 'Travel' });
      });
      await details.getByRole('button', { name: 'Outdent' }).click();
      await eventually(async () => {
        expect((await getTasks(fixture, token)).find((task) => task.id === milk.id)?.parent_id).toBeNull();
      });

      // Reminders: at a time, and minutes before the deadline; shown on the row; removed.
      await details.getByRole('combobox', { name: 'New reminder' }).selectOption('at');
      await details.getByLabel('Reminder time').fill('2030-01-02T09:00');
      await details.getByRole('button', { name: 'Add reminder' }).click();
      await details.getByRole('button', { name: 'Remove reminder at 2030-01-02 09:00' }).waitFor();
      await details.getByRole('combobox', { name: 'New reminder' }).selectOption('end_at');
      await details.getByRole('spinbutton', { name: 'Minutes before' }).fill('30');
      await details.getByRole('button', { name: 'Add reminder' }).click();
      await details.getByText('30 minutes before the deadline').waitFor();
      await eventually(async () => {
        const stored = (await getTasks(fixture, token)).find((task) => task.id === milk.id);
        expect(stored?.reminders).toMatchObject([{ at: '2030-01-02 09:00:00 +0000' }, { before: 30, of: 'end_at' }]);
      });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await audit(page)).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await details.getByRole('button', { name: 'Remove reminder 30 minutes before the deadline' }).click();
      await eventually(async () => {
        const stored = (await getTasks(fixture, token)).find((task) => task.id === milk.id);
        expect(stored?.reminders).toHaveLength(1);
      });

      // Add subtask, from the parent's details.
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });
      await inbox.getByRole('img', { name: '1 reminder' }).waitFor();
      await inbox.getByRole('button', { name: 'Plan trip', exact: true }).click();
      await details.getByRole('textbox', { name: 'Add subtask' }).fill('Buy adapters');
      await details.getByRole('textbox', { name: 'Add subtask' }).press('Enter');
      await details
        .getByRole('list', { name: 'Subtasks of Plan trip' })
        .getByRole('button', { name: 'Buy adapters' })
        .waitFor();
      await eventually(async () => {
        const stored = (await getTasks(fixture, token)).find((task) => task.title === 'Buy adapters');
        expect(stored).toMatchObject({ parent_id: trip.id, project: 'Travel', attribute: 'inbox' });
      });
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });

      // Dragging: onto a task makes a subtask; a parent onto its own subtask is a loop, which
      // the server refuses (E004) and the app says so in words.
      const rowOf = (title: string) =>
        inbox.getByRole('listitem').filter({ has: page.getByRole('button', { name: title, exact: true }) });
      await rowOf('Buy milk').dragTo(rowOf('Book flights'), { targetPosition: { x: 200, y: 22 } });
      await eventually(async () => {
        expect((await getTasks(fixture, token)).find((task) => task.id === milk.id)?.parent_id).toBe(flights.id);
      });
      await rowOf('Plan trip').dragTo(rowOf('Book flights'), { targetPosition: { x: 200, y: 22 } });
      const refusal = page.getByRole('alert').filter({ hasText: 'not saved' });
      await refusal.waitFor();
      expect(await refusal.textContent()).toContain('parent_id');
      expect((await getTasks(fixture, token)).find((task) => task.id === trip.id)?.parent_id).toBeNull();
      await inbox.getByRole('checkbox', { name: 'Complete Plan trip' }).waitFor();

      // Trashing the parent takes its subtree along, at once in the list, and on the server.
      await inbox.getByRole('button', { name: 'Plan trip', exact: true }).click();
      await details.getByRole('button', { name: 'Move to trash' }).click();
      await inbox.getByRole('checkbox', { name: 'Complete Book flights' }).waitFor({ state: 'detached' });
      await inbox.getByRole('checkbox', { name: 'Complete Buy milk' }).waitFor({ state: 'detached' });
      await eventually(async () => {
        const stored = await getTasks(fixture, token);
        expect(stored.filter((task) => task.trashed === null).map((task) => task.title)).toEqual([]);
      });
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it('indents, outdents, reorders and collapses by keyboard alone', async () => {
    const token = await newUser(fixture);
    for (const title of ['Third', 'Second', 'First']) await postTask(fixture, token, { title });
    const { page, context, problems } = await openApp(fixture, token);
    const inbox = page.getByRole('list', { name: 'Inbox' });
    await inbox.getByRole('checkbox', { name: 'Complete First' }).waitFor();
    const byTitle = async (): Promise<Map<string, { parent_id: string | null; sort_order: number }>> =>
      new Map((await getTasks(fixture, token)).map((task) => [task.title, task]));
    const titles = async (): Promise<string[]> => inbox.locator('.title').allTextContents();

    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await focusedOn(page, 'Second');
    // On "Second": Tab makes it a subtask of "First".
    await page.keyboard.press('Tab');
    await inbox.getByRole('button', { name: 'Collapse First' }).waitFor();
    await eventually(async () => {
      const stored = await byTitle();
      expect(stored.get('Second')?.parent_id).toBe(
        (await getTasks(fixture, token)).find((task) => task.title === 'First')?.id,
      );
    });
    // c collapses the selected task's subtasks (First's), and again expands them.
    await page.keyboard.press('k');
    await focusedOn(page, 'First');
    await page.keyboard.press('c');
    await inbox.getByRole('button', { name: 'Expand First' }).waitFor();
    await page.keyboard.press('c');
    await inbox.getByRole('button', { name: 'Collapse First' }).waitFor();
    // Shift+Tab on "Second" moves it out again, just after "First".
    await page.keyboard.press('j');
    await focusedOn(page, 'Second');
    await page.keyboard.press('Shift+Tab');
    await inbox.getByRole('button', { name: 'Collapse First' }).waitFor({ state: 'detached' });
    await eventually(async () => expect((await byTitle()).get('Second')?.parent_id).toBeNull());
    expect(await titles()).toEqual(['First', 'Second', 'Third']);
    // Alt+↓ and Alt+↑ reorder; the server keeps the order.
    await page.keyboard.press('Alt+ArrowDown');
    await eventually(async () => expect(await titles()).toEqual(['First', 'Third', 'Second']));
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await focusedOn(page, 'First');
    await page.keyboard.press('Alt+ArrowDown');
    await eventually(async () => expect(await titles()).toEqual(['Third', 'First', 'Second']));
    await eventually(async () => {
      const stored = await byTitle();
      const order = (title: string): number => stored.get(title)?.sort_order ?? NaN;
      expect(order('Third')).toBeLessThan(order('First'));
      expect(order('First')).toBeLessThan(order('Second'));
    });
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.getByText('Tab / Shift+Tab').waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // Escape leaves the row; Tab then moves the focus on, as anywhere else (no trap).
    await focusedOn(page, 'First');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.tagName')).not.toBe('BODY');
    expect(problems).toEqual([]);
    await context.close();
  });
});
