import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const WEB_ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web app's build: Vite's own JSX transform aimed at Preact (no framework plugin), into
 * dist/web, which the server serves at `/`. Hashed names under assets/ may be cached for ever;
 * the service worker keeps a fixed name so the browser can find it again.
 */
export default defineConfig({
  root: WEB_ROOT,
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: { app: `${WEB_ROOT}index.html`, sw: `${WEB_ROOT}src/sw.ts` },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
});
