// Builds the BEIR-format collections the retrieval benchmark measures: SQuAD dev by paragraph and by article, and the fixture corpus.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { createExtractor } from '../src/rag/extract/create-extractor.js';

/** SQuAD v1.1 dev in the shared data folder beside the project (or beside its worktree folder); never read by tests. */
export const SQUAD_DEV =
  [join(PROJECT_ROOT, '..'), join(PROJECT_ROOT, '..', '..')].map((dir) => join(dir, 'shared/data/squad-v1.1-dev/dev-v1.1.json')).find((path) => existsSync(path)) ??
  join(PROJECT_ROOT, '..', 'shared/data/squad-v1.1-dev/dev-v1.1.json');
const FIXTURE = join(PROJECT_ROOT, 'tests/fixtures/corpus');

interface Squad {
  data: Array<{ title: string; paragraphs: Array<{ context: string; qas: Array<{ id: string; question: string }> }> }>;
}

async function writeBeir(dir: string, corpus: Array<{ _id: string; title: string; text: string }>, queries: Array<{ _id: string; text: string }>, qrels: Array<[string, string]>): Promise<string> {
  await mkdir(join(dir, 'qrels'), { recursive: true });
  await writeFile(join(dir, 'corpus.jsonl'), corpus.map((d) => JSON.stringify(d)).join('\n') + '\n');
  await writeFile(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  await writeFile(join(dir, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${qrels.map(([q, d]) => `${q}\t${d}\t1`).join('\n')}\n`);
  return dir;
}

/**
 * Writes the collections under `root` and returns name → folder. SQuAD ones are absent when the shared data is.
 * - squad-dev-paragraphs: 2,067 paragraphs, each a document; 10,570 questions, one relevant paragraph each.
 * - squad-dev-articles: the 48 articles as long documents (many chunks each); the same questions, relevant article.
 * - fixture-corpus: the test fixture's 40 files (HTML, Markdown, text) as extracted; its labelled questions.
 */
export async function buildBeirSets(root: string): Promise<Record<string, string>> {
  const sets: Record<string, string> = {};
  if (existsSync(SQUAD_DEV)) {
    const squad = JSON.parse(readFileSync(SQUAD_DEV, 'utf8')) as Squad;
    const paragraphs: Array<{ _id: string; title: string; text: string }> = [];
    const articles: Array<{ _id: string; title: string; text: string }> = [];
    const queries: Array<{ _id: string; text: string }> = [];
    const byParagraph: Array<[string, string]> = [];
    const byArticle: Array<[string, string]> = [];
    squad.data.forEach((article, a) => {
      const articleId = `a${a}`;
      articles.push({ _id: articleId, title: article.title.replace(/_/g, ' '), text: article.paragraphs.map((p) => p.context).join('\n\n') });
      for (const paragraph of article.paragraphs) {
        const id = `p${paragraphs.length}`;
        paragraphs.push({ _id: id, title: '', text: paragraph.context });
        for (const qa of paragraph.qas) {
          queries.push({ _id: qa.id, text: qa.question });
          byParagraph.push([qa.id, id]);
          byArticle.push([qa.id, articleId]);
        }
      }
    });
    sets['squad-dev-paragraphs'] = await writeBeir(join(root, 'squad-dev-paragraphs'), paragraphs, queries, byParagraph);
    sets['squad-dev-articles'] = await writeBeir(join(root, 'squad-dev-articles'), articles, queries, byArticle);
  }
  const documentsDir = join(FIXTURE, 'documents');
  const pairs = (JSON.parse(readFileSync(join(FIXTURE, 'retrieval-set.json'), 'utf8')) as { pairs: Array<{ id: string; question: string; expected: string }> }).pairs;
  const extractor = createExtractor({ documentsDir });
  try {
    const corpus: Array<{ _id: string; title: string; text: string }> = [];
    // The labelled files first, then the rest of the folder, each once.
    for (const name of new Set([...pairs.map((p) => p.expected), ...readdirSync(documentsDir)])) {
      const result = await extractor.extract(name);
      if (result.ok) corpus.push({ _id: name, title: result.title ?? '', text: result.pages.map((p) => p.text).join('\n\n') });
    }
    sets['fixture-corpus'] = await writeBeir(
      join(root, 'fixture-corpus'),
      corpus,
      pairs.map((p) => ({ _id: p.id, text: p.question })),
      pairs.map((p) => [p.id, p.expected]),
    );
  } finally {
    await extractor.close();
  }
  return sets;
}
