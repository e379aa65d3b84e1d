/**
 * The service writes every string HTML-escaped, exactly five characters and nothing else
 * (API.md section 2). Undone here once, in one pass, so `&amp;lt;` becomes `&lt;`, never `<`.
 */
const ENTITY = /&(?:amp|lt|gt|quot|#39);/g;

const CHARACTER_OF: Readonly<Record<string, string>> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

export function unescapeHtml(text: string): string {
  return text.includes('&') ? text.replace(ENTITY, (entity) => CHARACTER_OF[entity] ?? entity) : text;
}
