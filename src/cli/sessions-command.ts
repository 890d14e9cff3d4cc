// `cortex sessions`: the saved sessions, newest first, with the id `--session` takes.
import type { LoadedConfig } from '../config/load-config.js';
import { listSessions } from '../memory/session-files.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

export async function sessionsCommand(config: LoadedConfig, limit: number, out: Output): Promise<number> {
  const sessions = await listSessions(config.paths.memory, { limit });
  if (out.json) {
    out.result(sessions);
  } else if (sessions.length === 0) {
    out.line(`No sessions yet in ${config.paths.memory}.`);
  } else {
    for (const s of sessions) {
      out.line(`${s.id}  ${s.started}  ${String(s.item_count).padStart(4)} items  ${s.error ? out.red(s.error) : (s.first_query ?? '')}`);
    }
  }
  return EXIT.ok;
}
