/**
 * `npm run screenshots:web`: the sign-in page, the web app's main screens on a small account, the
 * consent page, Settings and its import preview, written to docs/screenshots/ (the README and
 * docs/web.md show them).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { addUserWithPassword, cli, launchChromium, post, REPO, serve, signIn } from './web-support.js';

const SHOTS = path.join(REPO, 'docs', 'screenshots');
const PASSWORD = 'a long passphrase';

function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

const TASKS = [
  { title: 'Sort the receipts from the trip', notes: 'Shoebox on the shelf' },
  { title: 'Idea: a reading group at work' },
  { title: 'Reply to Ann about the <b>garden</b> & "fence"' },
  { title: 'Call the plumber', attribute: 'next', context: '@phone', project: 'House', priority: 3 },
  { title: 'Ask Bob for the ladder', attribute: 'next', context: '@phone', project: 'House' },
  { title: 'Fix the gutter', attribute: 'next', context: '@home', project: 'House', tags: ['weekend'] },
  { title: 'Draft the quarterly report', attribute: 'next', context: '@office', project: 'Work', priority: 2 },
  { title: 'Buy light bulbs', attribute: 'next', context: '@errands', tags: ['shop'] },
  { title: 'Dentist', attribute: 'plan', start_at: `${day(0)} 15:30:00 +0000`, end_at: `${day(0)} 16:30:00 +0000` },
  { title: 'Water the plants', attribute: 'plan', start_at: day(1), all_day: true, repeater: 'FREQ=DAILY' },
  {
    title: 'Renew passport',
    attribute: 'plan',
    start_at: day(-2),
    all_day: true,
    end_at: day(20),
    project: 'Admin',
    reminders: [{ at: `${day(3)} 09:00:00 +0000` }, { before: 1440, of: 'end_at' }],
  },
  { title: 'Team offsite', attribute: 'plan', start_at: day(9), all_day: true, project: 'Work' },
  { title: 'Learn the cello', attribute: 'noplan' },
  { title: 'Parcel from the bike shop', attribute: 'waiting' },
];

/** Two trees of subtasks in the Inbox (WEB.md 1b): one shown open, one collapsed. */
const SUBTASKS = [
  { id: 'shot-move', title: 'Move to the new flat', project: 'House' },
  { title: 'Order the boxes', parent_id: 'shot-move' },
  { title: 'Tell the bank the new address', parent_id: 'shot-move' },
  { id: 'shot-trip', title: 'Plan the trip to Lisbon', project: 'Travel', reminders: [{ before: 60, of: 'start_at' }] },
  { title: 'Book the flights', parent_id: 'shot-trip', completed: `${day(-1)} 10:00:00 +0000` },
  { title: 'Find a hotel near Alfama', parent_id: 'shot-trip', sort_order: 1 },
  { id: 'shot-pack', title: 'Pack the bags', parent_id: 'shot-trip', sort_order: 2 },
  { title: 'Buy a travel adapter', parent_id: 'shot-pack', tags: ['shop'] },
];

/** What another app exports: the preview of its import is a screenshot of its own. */
const CALENDAR = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Another App//EN',
  ...[
    ['shot-1', 'Book the ferry to the island', 'CATEGORIES:travel'],
    ['shot-2', 'Renew the car insurance', 'DUE;VALUE=DATE:20270115'],
    ['shot-3', 'Send the photos to Mia', 'PRIORITY:1'],
  ].flatMap(([uid = '', summary = '', extra = '']) => [
    'BEGIN:VTODO',
    `UID:${uid}@another.example`,
    'DTSTAMP:20261101T120000Z',
    `SUMMARY:${summary}`,
    extra,
    'END:VTODO',
  ]),
  'BEGIN:VEVENT',
  'UID:event-1@another.example',
  'DTSTAMP:20261101T120000Z',
  'DTSTART:20261201T080000Z',
  'SUMMARY:Dinner with Ann',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

/** Each project of the small account gets a color, as a person would give it under Manage. */
const PROJECT_COLORS: Readonly<Record<string, string>> = {
  House: '#bf8700',
  Work: '#0969da',
  Admin: '#8250df',
  Family: '#cf222e',
};

async function colorProjects(origin: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const listed = (await (await fetch(`${origin}/v1/projects`, { headers })).json()) as {
    entries: { id: string; name: string }[];
  }; // The wire's list envelope (docs/api.md).
  const body = listed.entries.flatMap((project) => {
    const color = PROJECT_COLORS[project.name];
    return color === undefined ? [] : [{ id: project.id, color }];
  });
  const answer = await fetch(`${origin}/v1/projects`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(`coloring failed: ${await answer.text()}`);
}

/**
 * The second round's set (WEB.md 1b): the same screens at 1280 px and at 375 px, light and dark,
 * named `<desktop|phone>-<light|dark>-<screen>.png`.
 */
async function themedShots(page: Page, origin: string): Promise<void> {
  for (const [device, size] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 375, height: 740 }],
  ] as const) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const shot = async (name: string): Promise<void> => {
        await page.waitForTimeout(200);
        await page.screenshot({ path: path.join(SHOTS, `${device}-${scheme}-${name}.png`) });
      };
      await page.goto(`${origin}/#/next`);
      await page.getByRole('list', { name: 'Next' }).waitFor();
      await shot('next');
      await page.goto(`${origin}/#/inbox`);
      await page.getByRole('checkbox', { name: 'Complete Buy a travel adapter' }).waitFor();
      await shot('subtasks');
      await page.getByRole('searchbox', { name: 'Search' }).fill('the');
      await page.getByRole('list', { name: 'Search results' }).waitFor();
      await shot('search');
      await page.goto(`${origin}/#/scheduled`);
      await page.getByRole('button', { name: 'Renew passport' }).click();
      await page.getByRole('region', { name: 'Task details' }).waitFor();
      await shot('details');
      await page.getByRole('group', { name: 'Reminders' }).scrollIntoViewIfNeeded();
      await shot('reminders');
      await page.keyboard.press('Escape');
      await page.getByRole('region', { name: 'Task details' }).waitFor({ state: 'detached' });
      await page.goto(`${origin}/#/labels`);
      await page.getByRole('region', { name: 'Projects' }).waitFor();
      await shot('projects');
      await page.goto(`${origin}/#/inbox`);
      await page.getByRole('checkbox', { name: 'Complete Sort the receipts from the trip' }).click();
      await page.getByRole('status').filter({ hasText: 'Completed' }).waitFor();
      await shot('undo');
      await page.getByRole('button', { name: 'Undo' }).click();
      if (device === 'phone') {
        await page.getByRole('button', { name: 'Menu', exact: true }).click();
        await page.getByRole('navigation').waitFor();
        await shot('menu');
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Settings' Webhooks (API.md 4.7) at 1280 and 375 px, light and dark: a hook that delivers to a
 * receiver here, its log open, and one whose host does not resolve (its failures shown).
 */
async function webhookShots(page: Page, origin: string, token: string): Promise<void> {
  const receiver = createServer((incoming, outgoing) => {
    incoming.resume();
    incoming.on('end', () => outgoing.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tasks`; // A TCP server's address.
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const make = async (body: object): Promise<string> => {
      const answer = await fetch(`${origin}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify(body) });
      const made = (await answer.json()) as { id: string }; // The hook as docs/api.md shows it.
      return made.id;
    };
    const id = await make({ url: hookUrl, events: ['task.created', 'task.completed'] });
    await make({ url: 'https://hooks.example.invalid/tasks', events: ['*'] });
    await post(origin, token, [{ id: 'shot-bill', title: 'Pay the electricity bill' }]);
    await post(origin, token, [{ id: 'shot-bill', completed: day(0) }]);
    for (let tries = 0; ; tries += 1) {
      const log = await fetch(`${origin}/v1/webhooks/${id}/deliveries`, { headers });
      if (((await log.json()) as { entries: unknown[] }).entries.length >= 2 || tries > 100) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const [device, size] of [
      // Tall enough for the whole section: a shot of an element is cut at the screen's edge.
      ['desktop', { width: 1280, height: 1400 }],
      ['phone', { width: 375, height: 1400 }],
    ] as const) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${origin}/#/settings`);
        const section = page.getByRole('region', { name: 'Webhooks' });
        const open = section.getByRole('button', { name: `Deliveries to ${hookUrl}` });
        // The page stays the same from one shot to the next: the log may be open already.
        if ((await open.getAttribute('aria-expanded')) !== 'true') await open.click();
        await section.getByRole('table').waitFor();
        await page.waitForTimeout(200);
        await section.screenshot({ path: path.join(SHOTS, `${device}-${scheme}-webhooks.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
  } finally {
    receiver.close();
  }
}

async function main(): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'task-service-web-shots-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const origin = `http://127.0.0.1:${port}`;
  // Private addresses allowed: the webhooks' screenshot has a receiver on this machine.
  const server = await serve(dataDir, port, ['--webhook-allow-private']);
  const browser = await launchChromium();
  try {
    await addUserWithPassword(dataDir, 'ana', PASSWORD);
    const token = await cli(dataDir, ['token', 'create', 'ana', '--name', 'phone']);
    await post(origin, token, TASKS);
    await post(origin, token, [{ title: 'Book a table for the anniversary', project: 'Family', attribute: 'next' }]);
    await post(origin, token, SUBTASKS);
    await colorProjects(origin, token);
    const resultPage = `${origin}/oauth/auth_result.html`;
    const [clientId = ''] = (
      await cli(dataDir, ['client', 'add', 'Vim plugin', '--redirect-uri', resultPage, '--legacy-implicit'])
    ).split('\n');
    const context = await browser.newContext({ viewport: { width: 1200, height: 640 } });
    const page = await context.newPage();
    const shot = async (name: string): Promise<void> => {
      await page.waitForTimeout(200);
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
    };
    await page.goto(`${origin}/`);
    await page.waitForURL(`${origin}/login?next=%2F`);
    await page.getByRole('textbox', { name: 'Username' }).fill('ana');
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await shot('sign-in');
    await signIn(page, origin, 'ana', PASSWORD);
    await page.getByRole('checkbox', { name: 'Complete Sort the receipts from the trip' }).waitFor();
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await page.getByRole('button', { name: 'Collapse Move to the new flat' }).click();
    await page.getByRole('textbox', { name: 'Add a task' }).fill('Book a table #Family @phone *dinner !2 ^fri');
    await shot('inbox');
    await page.getByRole('textbox', { name: 'Add a task' }).fill('');
    await page.getByRole('link', { name: /^Next/ }).click();
    await shot('next');
    await page.getByRole('link', { name: /^Scheduled/ }).click();
    await shot('scheduled');
    await page.getByRole('button', { name: 'Renew passport' }).click();
    await page.getByRole('region', { name: 'Task details' }).waitFor();
    await shot('details');
    await page.keyboard.press('Escape');
    await page.keyboard.press('?');
    await shot('help');
    await page.keyboard.press('Escape');
    // An app asks for access (the consent page), then Settings lists it with the tokens.
    const authorize = new URL('/oauth/authorize', origin);
    authorize.search = new URLSearchParams({
      response_type: 'token',
      client_id: clientId,
      redirect_uri: resultPage,
      scope: 'read',
    }).toString();
    await page.goto(authorize.toString());
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await shot('consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('textbox', { name: 'Access token' }).waitFor();
    await page.goto(`${origin}/#/settings`);
    await page.setViewportSize({ width: 1200, height: 1240 });
    const tokens = page.getByRole('region', { name: 'Tokens' });
    await tokens.getByRole('textbox', { name: 'Token name' }).fill('backup script');
    await tokens.getByRole('combobox', { name: 'Access' }).selectOption('read');
    await tokens.getByRole('button', { name: 'New token' }).click();
    await tokens.getByRole('textbox', { name: /Your new token/ }).waitFor();
    await page.getByRole('region', { name: 'Connected apps' }).getByRole('listitem').waitFor();
    await shot('settings');
    const importing = page.getByRole('region', { name: 'Import' });
    await importing
      .getByLabel('File')
      .setInputFiles({ name: 'from-another-app.ics', mimeType: 'text/calendar', buffer: Buffer.from(CALENDAR) });
    await importing.getByRole('button', { name: 'Preview' }).click();
    await importing.getByLabel('Import preview').waitFor();
    await page.waitForTimeout(200);
    await importing.screenshot({ path: path.join(SHOTS, 'import-preview.png') });
    await themedShots(page, origin);
    await webhookShots(page, origin, token);
    await page.setViewportSize({ width: 1200, height: 640 });
    await page.goto(`${origin}/#/inbox`);
    await page.getByRole('checkbox', { name: 'Complete Sort the receipts from the trip' }).waitFor();
    await context.setOffline(true);
    await page.getByRole('textbox', { name: 'Add a task' }).fill('Written on the train');
    await page.getByRole('textbox', { name: 'Add a task' }).press('Enter');
    await page.getByRole('status').filter({ hasText: 'offline' }).waitFor();
    await shot('offline');
    await context.close();
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
