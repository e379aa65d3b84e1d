import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip, markGzipped } from './compression.js';

/**
 * The web app's built files (docs/web.md), read once at start: a handful of small files, kept in
 * memory with their gzip form, so serving one is a lookup and no path from a request ever reaches
 * the file system.
 */
export interface WebAppFiles {
  /** URL path (`/`, `/sw.js`, `/assets/app-1a2b3c.js`) → file. */
  readonly byPath: ReadonlyMap<string, WebFile>;
}

interface WebFile {
  readonly contentType: string;
  readonly cacheControl: string;
  readonly plain: Buffer;
  readonly gzipped: Buffer | null;
}

/** Hashed names change with their content: a browser may keep them for a year without asking. */
const HASHED_CACHE = 'public, max-age=31536000, immutable';
/** The icons and the manifest have fixed names: kept a day, then asked for again. */
const ICON_CACHE = 'public, max-age=86400';
/** The app's files with fixed names besides the page and the service worker (web/public/). */
const FIXED_FILES = ['favicon.ico', 'icon.svg', 'icon-maskable.svg', 'manifest.webmanifest'] as const;
/** The page and the service worker name the current hashed files: always asked for again. */
const UNHASHED_CACHE = 'no-cache';

/**
 * The page runs only its own files: no inline script or style, no other origin, no framing.
 * Styles set from script through the DOM (the list's row offsets) are not inline styles.
 */
export const WEB_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
};

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.webmanifest']);

async function readWebFile(file: string, cacheControl: string): Promise<WebFile> {
  const extension = path.extname(file);
  const plain = await readFile(file);
  return {
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    cacheControl,
    plain,
    gzipped: COMPRESSIBLE.has(extension) ? gzipSync(plain, { level: 9 }) : null,
  };
}

/** Reads the built app from `dir` (dist/web); null when it has not been built. */
export async function loadWebApp(dir: string): Promise<WebAppFiles | null> {
  let assets: string[];
  try {
    assets = await readdir(path.join(dir, 'assets'));
  } catch {
    return null;
  }
  const byPath = new Map<string, WebFile>();
  byPath.set('/', await readWebFile(path.join(dir, 'index.html'), UNHASHED_CACHE));
  byPath.set('/sw.js', await readWebFile(path.join(dir, 'sw.js'), UNHASHED_CACHE));
  // Browsers ask for the icon on every page, the sign-in pages' too, and for the manifest and its
  // icons when the app is installed; a day's cache is plenty.
  for (const name of FIXED_FILES) byPath.set(`/${name}`, await readWebFile(path.join(dir, name), ICON_CACHE));
  for (const name of assets) {
    byPath.set(`/assets/${name}`, await readWebFile(path.join(dir, 'assets', name), HASHED_CACHE));
  }
  return { byPath };
}

/**
 * Whether the request asks for one of the app's files: a lookup in memory, which the load shedder
 * lets through (admission.ts), so a page opening while the API is busy still loads (issue 21).
 */
export function asksForWebFile(files: WebAppFiles, method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && files.byPath.has(url.split('?', 1)[0] ?? '');
}

function sendWebFile(request: FastifyRequest, reply: FastifyReply, file: WebFile): FastifyReply {
  void reply
    .code(200)
    .header('content-type', file.contentType)
    .header('cache-control', file.cacheControl)
    .header('content-security-policy', WEB_CONTENT_SECURITY_POLICY)
    .header('referrer-policy', 'no-referrer');
  if (file.gzipped !== null && acceptsGzip(request.headers['accept-encoding'])) {
    markGzipped(reply);
    return reply.send(file.gzipped);
  }
  return reply.send(file.plain);
}

/**
 * Serves the app at `/`, its service worker, its icons and manifest, and its hashed assets; every other path still
 * reaches the not-found handler (E002), the app itself routes by the URL's fragment.
 */
export function registerWebApp(
  app: FastifyInstance,
  files: WebAppFiles,
  notFound: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  async function serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const file = files.byPath.get(request.url.split('?', 1)[0] ?? '');
    if (file === undefined) {
      notFound(request, reply);
      return reply;
    }
    return sendWebFile(request, reply, file);
  }
  app.get('/', serve);
  app.get('/sw.js', serve);
  for (const name of FIXED_FILES) app.get(`/${name}`, serve);
  app.get('/assets/*', serve);
}
