import { useEffect } from 'preact/hooks';
import { dismissReminder, pageReminders, watchReminders } from '../reminder-alerts.ts';

/** Watches for reminders falling due while the app is open; shows those it may not notify of. */
export function ReminderAlerts() {
  useEffect(() => watchReminders(), []);
  const shown = pageReminders.value;
  if (shown.length === 0) return null;
  return (
    <div class="reminder-alerts" role="region" aria-label="Reminders">
      {shown.map((firing) => (
        <div key={firing.key} class="reminder-alert" role="alert">
          <span>
            Reminder: <strong>{firing.title}</strong>
          </span>
          <button
            type="button"
            aria-label={`Dismiss reminder ${firing.title}`}
            onClick={() => dismissReminder(firing.key)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
