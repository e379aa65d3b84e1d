import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal question before something that cannot be undone: Cancel (or Escape) keeps things as
 * they are, which is also where the focus starts.
 */
export function ConfirmDialog({
  title,
  confirm,
  children,
  onConfirm,
  onCancel,
}: {
  readonly title: string;
  readonly confirm: string;
  readonly children: ComponentChildren;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      role="alertdialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      onCancel={onCancel}
    >
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{children}</p>
      <div class="buttons">
        <button type="button" autofocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  );
}
