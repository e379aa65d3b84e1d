import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth, request } from '../e2e/support/http.js';
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

interface WireLabel {
  readonly name: string;
  readonly color?: string | null;
  readonly archived?: string | null;
}

describe('projects and contexts managed in the app', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  async function labels(token: string, kind: 'projects' | 'contexts'): Promise<WireLabel[]> {
    const answer = await request(fixture.server.origin, { path: `/v1/${kind}`, headers: oauth(token) });
    const body = JSON.parse(answer.text) as { entries: WireLabel[] }; // The wire's list envelope (API.md section 5).
    return body.entries;
  }

  it('creates, renames, colors, archives and deletes them; tasks follow the server', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Fix gutter', attribute: 'next', project: 'House', context: '@home' });
    const { page, context, problems } = await openApp(fixture, token);
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Manage projects and contexts' }).click();
    await page.getByRole('heading', { name: 'Projects and contexts', level: 1 }).waitFor();
    const projects = page.getByRole('region', { name: 'Projects' });
    const contexts = page.getByRole('region', { name: 'Contexts' });

    await projects.getByRole('textbox', { name: 'New project name' }).fill('Garden');
    await projects.getByRole('button', { name: 'Add project' }).click();
    await projects.getByRole('status').filter({ hasText: 'Added Garden.' }).waitFor();
    await nav.getByRole('link', { name: 'Garden' }).waitFor();

    await projects.getByRole('textbox', { name: 'Name of House' }).fill('Home');
    await projects.getByRole('textbox', { name: 'Name of House' }).press('Enter');
    await nav.getByRole('link', { name: 'Home', exact: true }).waitFor();
    await projects.getByLabel('Color of Garden').fill('#2da44e');
    await projects.getByRole('status').filter({ hasText: 'Color saved.' }).waitFor();
    await projects.getByRole('button', { name: 'Archive Garden' }).click();
    await nav.getByRole('link', { name: 'Garden' }).waitFor({ state: 'detached' });
    await projects.getByRole('button', { name: 'Unarchive Garden' }).waitFor();
    await eventually(async () => {
      expect(await labels(token, 'projects')).toEqual([
        expect.objectContaining({ name: 'Home', color: null, archived: null }),
        expect.objectContaining({ name: 'Garden', color: '#2da44e', archived: expect.any(String) }),
      ]);
      expect(await getTasks(fixture, token)).toMatchObject([{ project: 'Home' }]);
    });

    await contexts.getByRole('textbox', { name: 'New context name' }).fill('@phone');
    await contexts.getByRole('button', { name: 'Add context' }).press('Enter');
    await nav.getByRole('link', { name: '@phone' }).waitFor();
    await contexts.getByRole('button', { name: 'Delete @home' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete this context?' });
    expect(await dialog.textContent()).toContain('Its open task stays, without it.');
    await dialog.getByRole('button', { name: 'Delete context' }).click();
    await nav.getByRole('link', { name: '@home' }).waitFor({ state: 'detached' });
    await eventually(async () => {
      expect((await labels(token, 'contexts')).map((label) => label.name)).toEqual(['@phone']);
      expect(await getTasks(fixture, token)).toMatchObject([{ title: 'Fix gutter', context: null, project: 'Home' }]);
    });
    // The task shows without its context once the sync brings the server's change.
    await nav.getByRole('link', { name: /^Next/ }).click();
    await page.getByRole('list', { name: 'Next' }).getByRole('heading', { name: 'No context' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
