// `cortex index [--rebuild]`: brings the documents index up to date, with a progress bar and a summary.
import type { LoadedConfig } from '../config/load-config.js';
import { visionModel } from '../config/server-env.js';
import { embedderForProfile, indexFolder } from '../rag/index-folder.js';
import { selectCaptioner } from '../rag/vision/select-captioner.js';
import type { IndexProgress } from '../rag/index/index-documents.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { createStatusLine } from './status-line.js';

/** Width of the progress bar, in characters. */
const BAR_WIDTH = 24;
/** How long to wait for another indexer (e.g. a running documents server) before giving up. */
const INDEX_LOCK_WAIT_MS = 30_000;

export async function indexCommand(config: LoadedConfig, options: { rebuild: boolean }, out: Output): Promise<number> {
  const embedder = await embedderForProfile(config.profile.llm.embedding, config.models.models, process.env);
  const captioner = await selectCaptioner(visionModel(config.profile, config.models, config.profileFile, config.modelsFile), process.env);
  out.info(`indexing ${config.paths.documents} → ${config.paths.faissIndex} (embedder ${embedder.id}, images ${captioner?.id ?? 'not read'})`);
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
  const summary = await indexFolder({
    documentsDir: config.paths.documents,
    indexDir: config.paths.faissIndex,
    embedder,
    rebuild: options.rebuild,
    chunking: config.profile.rag.chunking,
    lockWaitMs: INDEX_LOCK_WAIT_MS,
    captioner,
    allowPrivateAddresses: !config.profile.security.block_private_network,
    onProgress,
  });
  status.clear();
  if (out.json) {
    out.result(summary);
  } else {
    out.line(
      `indexed ${config.paths.documents}: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ` +
        `${summary.skipped} unchanged, ${summary.failed.length} failed; ${summary.chunks} chunks in ${summary.ms} ms` +
        (summary.rebuilt ? ' (rebuilt)' : ''),
    );
    for (const f of summary.failed) out.line(`  skipped ${f.file}: ${f.reason}`);
  }
  return EXIT.ok;
}
