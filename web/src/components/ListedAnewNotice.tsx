import { listedAnew } from '../state.ts';

/**
 * Says, politely, why the whole list was loaded again (E008): the server's data was restored from
 * a backup (or this copy was too old), and changes not yet sent are kept.
 */
export function ListedAnewNotice() {
  if (!listedAnew.value) return null;
  return (
    <div class="notice" role="status" aria-label="Server data restored">
      <span>
        The server’s data was restored from a backup (or this copy was too old to go on from), so everything was loaded
        again from the server. Changes made here and not yet sent are kept and sent.
      </span>
      <button type="button" onClick={() => (listedAnew.value = false)}>
        Dismiss
      </button>
    </div>
  );
}
