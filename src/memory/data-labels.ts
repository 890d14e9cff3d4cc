// What an earlier answer drew on (outside content, private data), kept with it so later questions of the session inherit it.
import type { MemoryItem } from './memory-item.js';

/** What an earlier run drew on, kept with its answer so later questions of the session inherit it (docs/security.md). */
export interface DataLabels {
  untrusted: boolean;
  private: boolean;
  /** Where from, in a person's words (pages, files, mails). */
  sources: string[];
  /** Servers whose untrusted content it drew on. */
  servers?: string[];
}

/** Sources kept with one answer. */
const MAX_LABEL_SOURCES = 10;

/** Labels as stored in an item's metadata, or null when it has none (or they are malformed). */
export function labelsOf(item: MemoryItem): DataLabels | null {
  const l = item.metadata.labels as Partial<DataLabels> | undefined;
  if (!l || typeof l !== 'object') return null;
  const sources = Array.isArray(l.sources) ? l.sources.filter((s): s is string => typeof s === 'string').slice(0, MAX_LABEL_SOURCES) : [];
  const servers = Array.isArray(l.servers) ? l.servers.filter((s): s is string => typeof s === 'string').slice(0, MAX_LABEL_SOURCES) : [];
  return { untrusted: l.untrusted === true, private: l.private === true, sources, servers };
}

/** What the session's earlier runs (all but `excludeRunId`) drew on, together: what a later planner reading them holds. */
export function earlierLabels(items: readonly MemoryItem[], excludeRunId?: string): DataLabels {
  const all: DataLabels = { untrusted: false, private: false, sources: [], servers: [] };
  for (const item of items) {
    if (item.metadata.run_id === excludeRunId) continue;
    const labels = labelsOf(item);
    if (!labels) continue;
    all.untrusted ||= labels.untrusted;
    all.private ||= labels.private;
    for (const s of labels.sources) if (all.sources.length < MAX_LABEL_SOURCES && !all.sources.includes(s)) all.sources.push(s);
    for (const s of labels.servers ?? []) if (!all.servers!.includes(s)) all.servers!.push(s);
  }
  return all;
}
