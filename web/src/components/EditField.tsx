import { useEffect, useRef } from 'preact/hooks';

interface EditFieldProps {
  readonly value: string;
  /** Changes when the task changes (its rev): the shown value follows the stored one then (0 where there is none). */
  readonly version: number;
  readonly onCommit: (value: string) => void;
  readonly multiline?: boolean;
  readonly type?: 'text' | 'date' | 'datetime-local';
  /** The id of a datalist of suggestions. */
  readonly list?: string;
  readonly placeholder?: string;
  readonly maxLength?: number;
}

/**
 * A text field (of the details panel, of Settings), committed when the person leaves it (the change event).
 * It is not a controlled field: a sync that redraws the panel while someone types must not wipe
 * what they typed, so the stored value is written in only while the field does not have focus.
 */
export function EditField({
  value,
  version,
  onCommit,
  multiline = false,
  type = 'text',
  list,
  placeholder,
  maxLength,
}: EditFieldProps) {
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (element !== null && document.activeElement !== element && element.value !== value) element.value = value;
  }, [value, version]);
  const commit = (event: Event): void => {
    if (event.currentTarget instanceof HTMLInputElement || event.currentTarget instanceof HTMLTextAreaElement) {
      onCommit(event.currentTarget.value);
    }
  };
  return multiline ? (
    <textarea ref={ref} defaultValue={value} rows={4} onChange={commit} />
  ) : (
    <input
      ref={ref}
      type={type}
      list={list}
      placeholder={placeholder}
      maxLength={maxLength}
      defaultValue={value}
      onChange={commit}
    />
  );
}
