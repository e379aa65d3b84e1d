import { render } from 'preact';
import { App } from './components/App.tsx';
import { startSession } from './session.ts';
import { notice } from './state.ts';

performance.mark('app-start');
render(<App />, document.getElementById('app') ?? document.body);
startSession().catch((error: unknown) => {
  notice.value = `The app could not start: ${error instanceof Error ? error.message : String(error)}`;
});

// The page and its files are kept by a service worker, so a reload while offline still opens it.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch(() => undefined);
}
