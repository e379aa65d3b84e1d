import { undo } from '../actions.ts';
import { dismissUndo, undoOffer } from '../undo.ts';

/** What was just done, with Undo for 8 seconds (Ctrl+Z too); read out politely as it appears. */
export function Toast() {
  const offer = undoOffer.value;
  return (
    <div role="status" aria-live="polite" class={offer === null ? 'visually-hidden' : 'toast'}>
      {offer !== null && (
        <>
          <span>{offer.message}</span>
          {offer.show !== undefined && (
            <a href={offer.show} onClick={dismissUndo}>
              Show
            </a>
          )}
          {offer.revert !== undefined && (
            <button type="button" onClick={undo}>
              Undo
            </button>
          )}
          <button type="button" aria-label="Dismiss" onClick={dismissUndo}>
            ×
          </button>
        </>
      )}
    </div>
  );
}
