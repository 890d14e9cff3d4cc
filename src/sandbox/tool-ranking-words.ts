// Words of tool names and texts for ranking: split at snake_case, camelCase, kebab-case and digits, stopwords out, stemmed.
import { stem } from '../rag/text/stem.js';
import { STOPWORDS } from '../rag/text/stopwords.js';

/** Words of a name or text, split at snake_case, camelCase, kebab-case and digits, lower-cased, stopwords out, stemmed. */
export function toolWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map(stem);
}
