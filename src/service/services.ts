import { DEFAULT_STORAGE_QUOTA, type StorageQuota } from '../domain/storage-quota.js';
import { nowMicros, type Clock } from '../domain/time.js';
import type { Store } from '../store/store.js';
import { AccountAccessService } from './account-access.js';
import { AccountService } from './accounts.js';
import { CalendarService } from './calendars.js';
import { ChangeWaits } from './change-waits.js';
import { WebhookService } from './webhooks.js';
import { LabelService } from './labels.js';
import { ListingService } from './listing.js';
import { SettingsService } from './settings.js';
import { OAuthService } from './oauth.js';
import { PortabilityService } from './portability.js';
import { ReminderService } from './reminders.js';
import { SignInService } from './sign-in.js';
import { TaskService } from './tasks.js';

/** Every use case, over one store: what the HTTP app, the command line, the tests and the bench use. */
export interface Services {
  readonly accounts: AccountService;
  readonly listing: ListingService;
  readonly tasks: TaskService;
  /** CalDAV's tasks and collections (CALDAV.md), over the same rules as `tasks` and `labels`. */
  readonly calendars: CalendarService;
  readonly labels: LabelService;
  readonly settings: SettingsService;
  readonly signIn: SignInService;
  readonly oauth: OAuthService;
  readonly access: AccountAccessService;
  /** Export and import of an account's data (Settings in the web app; the command line makes its own). */
  readonly portability: PortabilityService;
  /** The account's webhooks (API.md 4.7), and what their sender reads and records. */
  readonly webhooks: WebhookService;
  /** The firing of reminders (API.md 4.5): what the process's ReminderFirer claims. */
  readonly reminders: ReminderService;
  /** Requests waiting for an account's changes (API.md 4.6), woken by the store's change feed. */
  readonly waits: ChangeWaits;
  /** Resolves when the store answers; rejects otherwise. */
  readonly health: () => Promise<void>;
}

export interface ServiceOptions {
  /** Whether anyone may create an account from the sign-in page (`serve --signup`). */
  readonly signup?: boolean;
  /** What one account may store; DEFAULT_STORAGE_QUOTA unless `serve --max-records` or a test sets another. */
  readonly storageQuota?: StorageQuota;
  /** The one clock every use case reads; the wall clock unless a test moves time itself. */
  readonly clock?: Clock;
}

export function buildServices(store: Store, options: ServiceOptions = {}): Services {
  const quota = options.storageQuota ?? DEFAULT_STORAGE_QUOTA;
  const now = options.clock ?? nowMicros;
  const listing = new ListingService(store);
  return {
    accounts: new AccountService(store, now),
    listing,
    calendars: new CalendarService(store, listing, quota, now),
    tasks: new TaskService(store, quota, now),
    labels: new LabelService(store, quota, now),
    settings: new SettingsService(store),
    signIn: new SignInService(store, options.signup ?? false, now),
    oauth: new OAuthService(store, now),
    access: new AccountAccessService(store, now),
    portability: new PortabilityService(store, now, quota),
    waits: new ChangeWaits(store.changes),
    webhooks: new WebhookService(store, now),
    reminders: new ReminderService(store, now),
    health: () => store.ping(),
  };
}
