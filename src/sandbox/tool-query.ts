// A tool-search query in words: split like tool names, hyphenated compounds joined ("drop-down" → "dropdown"), file names.
import { toolWords } from './tool-ranking-words.js';

/** Extensions that mark a word as a file name (`notes.md`, `.gitlab-ci.yml`), unlike a site (`example.com`). */
const FILE_EXTENSIONS = 'txt md markdown pdf json csv tsv yml yaml toml ini cfg conf log xml html htm js mjs ts tsx py rb go rs java c h cpp sh sql sqlite db png jpg jpeg gif svg webp mp3 mp4 wav zip gz tar doc docx xls xlsx ppt pptx';
const FILE_NAME = new RegExp(`[\\w-]\\.(?:${FILE_EXTENSIONS.replace(/ /g, '|')})\\b`, 'i');

/**
 * The stemmed concepts of `query`, each once. A hyphenated word a tool writes as one (`drop-down`, `to-dos`, `e-mail`)
 * counts joined, in place of its parts, when the catalogue's vocabulary `known` has the joined word; a file name adds
 * "file", since the person means one even without saying so.
 */
export function queryConcepts(query: string, known: { has(word: string): boolean }): string[] {
  const text = query.replace(/\b([a-z]+)-([a-z]+)\b/gi, (whole, a: string, b: string) => {
    const joined = toolWords(a + b);
    return joined.length === 1 && known.has(joined[0]!) ? a + b : whole;
  });
  const concepts = toolWords(text);
  if (FILE_NAME.test(query)) concepts.push(...toolWords('file'));
  return [...new Set(concepts)];
}
