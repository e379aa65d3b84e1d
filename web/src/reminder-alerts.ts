/**
 * Shows a reminder when it falls due while the app is open (WEB.md 1b, API.md 4.5): a system
 * notification where the person allowed them, else a message in the page. Reminders that fell
 * due before the page opened are not shown (the server fired them; this is not a log). The times
 * come from the tasks the app has (reminders-due.ts), looked at when the next one falls due, at
 * least once a minute (a sleeping laptop, a changed clock) and whenever the tasks change.
 */
import { effect, signal } from '@preact/signals';
import { dueBetween, type Firing } from './reminders-due.ts';
import { tasks } from './state.ts';

/** The reminders shown in the page (no permission to notify), until dismissed. */
export const pageReminders = signal<readonly Firing[]>([]);

const LOOK_AGAIN_MS = 60_000;

export function dismissReminder(key: string): void {
  pageReminders.value = pageReminders.value.filter((firing) => firing.key !== key);
}

/** A system notification, when allowed and possible; false means: show it in the page. */
async function notify(firing: Firing): Promise<boolean> {
  if (!('Notification' in window) || Notification.permission !== 'granted') return false;
  // The tag makes two open tabs one notification.
  const options = { body: 'Reminder', tag: firing.key };
  try {
    new Notification(firing.title, options);
    return true;
  } catch {
    // Android's Chrome takes notifications only from the service worker.
    const registration = await navigator.serviceWorker?.getRegistration();
    if (registration === undefined) return false;
    await registration.showNotification(firing.title, options);
    return true;
  }
}

async function show(firing: Firing): Promise<void> {
  // A refused notification (permission taken back meanwhile) is shown in the page instead.
  const shown = await notify(firing).catch(() => false);
  if (!shown) pageReminders.value = [...pageReminders.value.filter((kept) => kept.key !== firing.key), firing];
}

/** Starts watching for reminders falling due; the function returned stops it. */
export function watchReminders(): () => void {
  let looked = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = (): void => {
    clearTimeout(timer);
    const now = Date.now();
    const { due, next } = dueBetween(tasks.peek().values(), looked, now);
    looked = now;
    for (const firing of due) void show(firing);
    timer = setTimeout(look, Math.min(next === null ? LOOK_AGAIN_MS : next - now, LOOK_AGAIN_MS));
  };
  const stopWatching = effect(() => {
    // Read to be told of every change of the tasks; the look reads them itself.
    void tasks.value;
    look();
  });
  return () => {
    stopWatching();
    clearTimeout(timer);
  };
}
