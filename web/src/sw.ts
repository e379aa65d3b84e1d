/**
 * The service worker: keeps the page and its hashed files, so the app opens (and its queue of
 * waiting changes survives) when a reload happens offline. It never touches /v1: the app's data
 * lives in IndexedDB, and every API call goes to the network.
 */

/** The few parts of the service-worker scope used here (the DOM library does not describe them). */
interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(answer: Promise<Response>): void;
}
interface WorkerScope {
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  skipWaiting(): Promise<void>;
  readonly clients: { claim(): Promise<void> };
}

const scope: WorkerScope = self as unknown as WorkerScope; // `self` is typed as a window by the DOM library.
const CACHE = 'task-service-app';

/** What an installed app needs to open with no network, besides the page's hashed files. */
const FIXED = ['/manifest.webmanifest', '/icon.svg', '/icon-maskable.svg'];

/** The page, every hashed file it names, the manifest and the icons. */
async function keepApp(): Promise<void> {
  const cache = await caches.open(CACHE);
  const page = await fetch('/', { cache: 'no-store' });
  if (!page.ok) return;
  const html = await page.clone().text();
  const assets = [...new Set([...html.matchAll(/\/assets\/[\w.-]+/g)].map((match) => match[0]))];
  await cache.addAll([...assets, ...FIXED]);
  await cache.put('/', page);
}

scope.addEventListener('install', (event) => {
  event.waitUntil(keepApp().then(() => scope.skipWaiting()));
});

scope.addEventListener('activate', (event) => {
  event.waitUntil(scope.clients.claim());
});

scope.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== location.origin) return;
  if (event.request.mode === 'navigate' && url.pathname === '/') {
    // The network first, so a new version shows at once; the kept page when there is none.
    event.respondWith(
      fetch(event.request)
        .then(async (answer) => {
          if (answer.ok) {
            await (await caches.open(CACHE)).put('/', answer.clone());
            void keepApp().catch(() => undefined);
          }
          return answer;
        })
        .catch(async () => (await caches.match('/')) ?? Response.error()),
    );
  } else if (FIXED.includes(url.pathname)) {
    // Fixed names: the network first, the kept copy offline.
    event.respondWith(fetch(event.request).catch(async () => (await caches.match(url.pathname)) ?? Response.error()));
  } else if (url.pathname.startsWith('/assets/')) {
    // Hashed names never change content: the kept copy is always right.
    event.respondWith(caches.match(event.request).then((kept) => kept ?? fetch(event.request)));
  }
});
