// `cortex index [--rebuild]`: brings the documents index up to date, with a progress bar and a summary.
import type { LoadedConfig } from '../config/load-config.js';
import { indexFolder, openIndexer } from '../rag/index-folder.js';
import { IndexerSettings } from '../rag/indexer-settings.js';
import type { IndexProgress } from '../rag/index/index-documents.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { createStatusLine } from './status-line.js';

/** Width of the progress bar, in characters. */
const BAR_WIDTH = 24;

/** `--strict`: files that could not be indexed make the exit status an error. */
export async function indexCommand(config: LoadedConfig, options: { rebuild: boolean; strict?: boolean }, out: Output): Promise<number> {
  const settings = await openIndexer(IndexerSettings.fromProfile(config, process.env));
  out.info(`indexing ${settings.documentsDir} → ${settings.indexDir} (embedder ${settings.embedder.id}, images ${settings.captioner?.id ?? 'not read'})`);
  const status = createStatusLine(out);
  const onProgress = (event: IndexProgress) => {
    if (event.phase === 'message') {
      status.line(event.message);
    } else if (event.phase === 'file') {
      if (out.tty && event.outcome !== 'failed') {
        const filled = Math.round((event.done / Math.max(event.total, 1)) * BAR_WIDTH);
        status.transient(`[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${event.done}/${event.total} ${event.file}`);
      } else {
        const note = event.outcome === 'failed' ? `skipped: ${event.reason ?? 'failed'}` : `${event.chunks} chunks`;
        status.line(`${event.done}/${event.total} ${event.file}: ${note}`);
      }
    }
  };
  const summary = await indexFolder({ ...settings, rebuild: options.rebuild, onProgress });
  status.clear();
  if (out.json) {
    out.result(summary);
  } else {
    out.line(
      `indexed ${config.paths.documents}: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ` +
        `${summary.skipped} unchanged, ${summary.failed.length} failed; ${summary.chunks} chunks in ${summary.ms} ms` +
        (summary.rebuilt ? ' (rebuilt)' : ''),
    );
    for (const f of summary.failed) out.line(`  skipped ${f.file}: ${f.reason}${f.earlier ? ' (unchanged since it failed; fix or remove it)' : ''}`);
  }
  if (options.strict && summary.failed.length > 0) {
    out.error(`cortex: ${summary.failed.length} file${summary.failed.length === 1 ? '' : 's'} could not be indexed (--strict)`);
    return EXIT.gaveUp;
  }
  return EXIT.ok;
}
