/**
 * Saved searches (WEB.md 1b): a name and a query, listed in the navigation. They are kept in this
 * browser, per account (the API keeps none), and go with the rest of the copy at sign-out.
 */
import { computed, signal } from '@preact/signals';
import { settings } from './state.ts';

export interface SavedSearch {
  readonly name: string;
  readonly query: string;
}

const PREFIX = 'task-service.searches.';

function keyOf(accountId: string): string {
  return `${PREFIX}${accountId}`;
}

function isSaved(value: unknown): value is SavedSearch {
  return (
    typeof value === 'object' &&
    value !== null &&
    'name' in value &&
    'query' in value &&
    typeof value.name === 'string' &&
    typeof value.query === 'string'
  );
}

function load(accountId: string): readonly SavedSearch[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(keyOf(accountId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isSaved) : [];
  } catch {
    return [];
  }
}

const changed = signal(0);

export const savedSearches = computed<readonly SavedSearch[]>(() => {
  void changed.value;
  const id = settings.value?.id;
  return id === undefined ? [] : load(id);
});

function store(list: readonly SavedSearch[]): void {
  const id = settings.value?.id;
  if (id === undefined) return;
  localStorage.setItem(keyOf(id), JSON.stringify(list));
  changed.value += 1;
}

/** Saves `query` under `name`, replacing a saved search of that name. */
export function saveSearch(name: string, query: string): void {
  store([...savedSearches.value.filter((saved) => saved.name !== name), { name, query }]);
}

export function forgetSearch(name: string): void {
  store(savedSearches.value.filter((saved) => saved.name !== name));
}

/** Every account's saved searches, at sign-out. */
export function eraseSavedSearches(): void {
  for (const key of Object.keys(localStorage)) if (key.startsWith(PREFIX)) localStorage.removeItem(key);
}
