import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import { eventually, newUser, openApp, postTask, startWebFixture, type WebFixture } from './support/browser.js';

const LONG_TITLE = 'Buy milk and bread for the weekend';

describe('the web app on a phone, installable, light and dark', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('at 375 px: the navigation folds behind Menu, titles show, details take the screen with Back', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: LONG_TITLE, project: 'House', context: '@errands', tags: ['shop'] });
    await postTask(fixture, token, { title: 'Call Ann', attribute: 'next' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.setViewportSize({ width: 375, height: 740 });

    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.waitFor({ state: 'hidden' });
    const title = page.getByRole('button', { name: LONG_TITLE, exact: true });
    const box = await title.boundingBox();
    expect(box?.width).toBeGreaterThan(150);
    expect(box?.height).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

    const menu = page.getByRole('button', { name: 'Menu', exact: true });
    expect((await menu.boundingBox())?.height).toBeGreaterThanOrEqual(44);
    await menu.click();
    await nav.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    const next = nav.getByRole('link', { name: /^Next/ });
    expect((await next.boundingBox())?.height).toBeGreaterThanOrEqual(44);
    await next.click();
    await nav.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Next' }).waitFor();
    await page.getByRole('button', { name: 'Call Ann' }).click();

    const details = page.getByRole('region', { name: 'Task details' });
    const panel = await details.boundingBox();
    expect(panel).toMatchObject({ x: 0, width: 375 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await details.getByRole('button', { name: 'Back' }).click();
    await details.waitFor({ state: 'detached' });

    // The menu closes with Escape too, and on a desktop the navigation is always there.
    await menu.click();
    await nav.waitFor();
    await page.keyboard.press('Escape');
    await nav.waitFor({ state: 'hidden' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await nav.waitFor();
    await menu.waitFor({ state: 'hidden' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('is installable: a manifest with drawn icons, served with the app and kept for an offline start', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    const manifest: unknown = await page.evaluate(`(async () => {
      const link = document.querySelector('link[rel="manifest"]');
      const answer = await fetch(link.href);
      return { type: answer.headers.get('content-type'), body: await answer.json() };
    })()`);
    expect(manifest).toMatchObject({
      type: 'application/manifest+json; charset=utf-8',
      body: { name: 'Task Service', display: 'standalone', start_url: '/#/inbox' },
    });
    const icons: unknown = await page.evaluate(`(async () => {
      const { icons } = await (await fetch('/manifest.webmanifest')).json();
      return Promise.all(icons.map((icon) => new Promise((resolve) => {
        const image = new Image();
        image.onload = () => resolve({ src: icon.src, width: image.naturalWidth, purpose: icon.purpose });
        image.onerror = () => resolve({ src: icon.src, width: 0 });
        image.src = icon.src;
      })));
    })()`);
    expect(icons).toEqual([
      { src: '/icon.svg', width: 512, purpose: 'any' },
      { src: '/icon-maskable.svg', width: 512, purpose: 'maskable' },
    ]);
    await eventually(async () => {
      const kept: unknown = await page.evaluate(
        `caches.open('task-service-app').then(async (cache) => Boolean(await cache.match('/manifest.webmanifest')) && Boolean(await cache.match('/icon.svg')))`,
      );
      expect(kept).toBe(true);
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('follows the system into dark mode, and Settings can force light or dark', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    const background = async (): Promise<unknown> =>
      page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(13, 17, 23)');

    await page.getByRole('link', { name: 'Settings' }).click();
    const choice = page.getByRole('combobox', { name: 'Theme' });
    await choice.selectOption('light');
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.reload();
    await page.getByRole('combobox', { name: 'Theme' }).waitFor();
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    expect(await background()).toBe('rgb(13, 17, 23)');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
    expect(await background()).toBe('rgb(255, 255, 255)');
    expect(problems).toEqual([]);
    await context.close();
  });
});
