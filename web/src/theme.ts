/**
 * Light or dark (WEB.md 1b): the system's choice (`prefers-color-scheme`) unless this browser was
 * told otherwise in Settings. The choice is the device's, not the account's: it lives in local
 * storage, and the stylesheet reads it from `data-theme` on the page's root.
 */
import { signal } from '@preact/signals';

export type Theme = 'system' | 'light' | 'dark';

const THEME_STORAGE_KEY = 'task-service.theme';

function stored(): Theme {
  const value = localStorage.getItem(THEME_STORAGE_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export const theme = signal<Theme>(stored());

function apply(choice: Theme): void {
  if (choice === 'system') delete document.documentElement.dataset['theme'];
  else document.documentElement.dataset['theme'] = choice;
}

apply(theme.value);

export function chooseTheme(choice: Theme): void {
  theme.value = choice;
  if (choice === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
  else localStorage.setItem(THEME_STORAGE_KEY, choice);
  apply(choice);
}
