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

describe('undo for 8 seconds, and a permanent delete asks first', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('undoes completing (Undo), trashing (Ctrl+Z) and moving, and the offer goes after 8 s', async () => {
    const token = await newUser(fixture);
    const milk = await postTask(fixture, token, { title: 'Buy milk' });
    const { page, context, problems } = await openApp(fixture, token);
    const inbox = page.getByRole('list', { name: 'Inbox' });
    const message = page.getByRole('status').filter({ hasText: 'Buy milk' });

    await inbox.getByRole('checkbox', { name: 'Complete Buy milk' }).click();
    await message.filter({ hasText: 'Completed “Buy milk”' }).waitFor();
    await inbox.getByRole('checkbox', { name: 'Complete Buy milk' }).waitFor({ state: 'detached' });
    await message.getByRole('button', { name: 'Undo' }).click();
    await inbox.getByRole('checkbox', { name: 'Complete Buy milk' }).waitFor();
    await eventually(async () => {
      expect(await getTasks(fixture, token)).toMatchObject([{ id: milk.id, completed: null }]);
      expect((await getTasks(fixture, token))[0]?.rev).toBeGreaterThan(milk.rev + 1);
    });

    await page.getByRole('button', { name: 'Buy milk', exact: true }).click();
    const details = page.getByRole('region', { name: 'Task details' });
    await details.getByRole('button', { name: 'Move to trash' }).click();
    await message.filter({ hasText: 'Moved to trash “Buy milk”' }).waitFor();
    await page.locator('body').press('Control+z');
    await eventually(async () => {
      const [stored] = await getTasks(fixture, token);
      expect(stored).toMatchObject({ trashed: null });
      expect(stored?.rev).toBeGreaterThan(milk.rev + 3);
    });

    await details.getByLabel('Box').selectOption('next');
    await message.filter({ hasText: 'Moved “Buy milk” to Next' }).waitFor();
    await message.getByRole('button', { name: 'Undo' }).click();
    await eventually(async () => {
      const [stored] = await getTasks(fixture, token);
      expect(stored).toMatchObject({ attribute: 'inbox' });
      expect(stored?.rev).toBeGreaterThan(milk.rev + 5);
    });
    await details.getByLabel('Box').selectOption('waiting');
    await message.filter({ hasText: 'Moved “Buy milk” to Waiting' }).waitFor();
    // The offer stands for 8 seconds, then goes.
    await message.waitFor({ state: 'detached', timeout: 15_000 });
    expect(await getTasks(fixture, token)).toMatchObject([{ attribute: 'waiting' }]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Delete asks for confirmation: Cancel (or Escape) keeps the task, Delete for good deletes it', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Old plan' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('button', { name: 'Old plan', exact: true }).click();
    const details = page.getByRole('region', { name: 'Task details' });
    await details.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete this task?' });
    expect(await dialog.textContent()).toContain('“Old plan” will be deleted for good');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await details.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await details.waitFor();
    expect(await getTasks(fixture, token)).toHaveLength(1);

    await details.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete for good' }).click();
    await details.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Old plan', exact: true }).waitFor({ state: 'detached' });
    await eventually(async () => expect(await getTasks(fixture, token)).toEqual([]));
    expect(problems).toEqual([]);
    await context.close();
  });
});
