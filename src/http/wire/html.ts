import { escapeHtml } from './escape.js';

/** HTML that is safe to put in a page as it is: made only by `html` (or `HTML_RAW` constants). */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolation = SafeHtml | string | number | readonly SafeHtml[] | undefined | null;

/**
 * The one way pages are written: a tagged template that escapes every interpolated value (text,
 * attribute values alike) unless it is already SafeHtml from another `html` template. Arrays of
 * SafeHtml are joined; `undefined` and `null` write nothing. Escaping is on by default, so
 * forgetting it is impossible; opting out needs a SafeHtml, which only this module makes.
 */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(value: Interpolation): string {
  if (value === undefined || value === null) return '';
  if (value instanceof SafeHtml) return value.text;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(value);
  return value.map((part) => part.text).join('');
}
