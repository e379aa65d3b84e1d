import { useSignal } from '@preact/signals';
import { forgetSearch, saveSearch, savedSearches } from '../saved-searches.ts';
import { route, search, searching } from '../state.ts';
import { hashOf } from '../views.ts';

/** Beside Search: save what is typed under a name, or forget the saved search shown. */
export function SearchSave() {
  const naming = useSignal(false);
  const name = useSignal('');
  const current = route.value;
  const shown =
    current.kind === 'search' ? savedSearches.value.find((saved) => saved.query === current.query) : undefined;
  if (shown !== undefined && search.value === shown.query) {
    return (
      <button
        type="button"
        class="icon-button"
        onClick={() => {
          forgetSearch(shown.name);
          location.hash = hashOf({ kind: 'box', view: 'inbox' });
        }}
      >
        Forget search<span class="visually-hidden"> {shown.name}</span>
      </button>
    );
  }
  if (!searching.value) return null;
  if (!naming.value) {
    return (
      <button type="button" class="icon-button" onClick={() => (naming.value = true)}>
        Save search
      </button>
    );
  }
  return (
    <form
      class="save-search"
      onSubmit={(event) => {
        event.preventDefault();
        const text = name.value.trim();
        if (text === '') return;
        const query = search.value.trim();
        saveSearch(text, query);
        naming.value = false;
        name.value = '';
        location.hash = hashOf({ kind: 'search', query });
      }}
    >
      <input
        type="text"
        aria-label="Search name"
        placeholder="Name"
        autofocus
        maxLength={100}
        value={name.value}
        onInput={(event) => (name.value = event.currentTarget.value)}
      />
      <button type="submit" class="icon-button">
        Save
      </button>
    </form>
  );
}
