/**
 * Undo (WEB.md 1b): completing, trashing and moving a task offer, for 8 seconds, to put back
 * what the change replaced. The offer holds the change that undoes it, made from the task as it
 * was; only the latest offer stands. The same message place says where a quick-added task went
 * when that is not the view shown, with **Show**.
 */
import { signal } from '@preact/signals';
import type { TaskBody } from './api.ts';

export const UNDO_MS = 8000;

export interface UndoOffer {
  /** What was done, said in the message: "Completed “Buy milk”". */
  readonly message: string;
  /** The change that undoes it; none for a message that only says where a task went. */
  readonly revert?: TaskBody;
  /** Where **Show** leads (a view's address), for a task added to another view than the one shown. */
  readonly show?: string;
}

export const undoOffer = signal<UndoOffer | null>(null);

let timer: ReturnType<typeof setTimeout> | undefined;

export function offerUndo(offer: UndoOffer): void {
  clearTimeout(timer);
  undoOffer.value = offer;
  timer = setTimeout(() => {
    if (undoOffer.value === offer) undoOffer.value = null;
  }, UNDO_MS);
}

/** Takes the standing offer (once): the change to send, or null when there is none. */
export function takeUndo(): TaskBody | null {
  const offer = undoOffer.value;
  clearTimeout(timer);
  undoOffer.value = null;
  return offer?.revert ?? null;
}

export function dismissUndo(): void {
  clearTimeout(timer);
  undoOffer.value = null;
}
