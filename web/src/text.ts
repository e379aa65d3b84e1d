const ENTITIES: Readonly<Record<string, string>> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&#39;': "'",
  '&quot;': '"',
};

/**
 * Undoes the service's HTML escaping (API.md section 2) in one pass, so `&amp;lt;` becomes the
 * text `&lt;` and never `<`. The result is shown as text, never parsed as HTML.
 */
export function unescapeText(text: string): string {
  return text.replace(/&(?:amp|lt|gt|#39|quot);/g, (entity) => ENTITIES[entity] ?? entity);
}
