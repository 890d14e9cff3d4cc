// `cortex servers trust ID [TOOL]`: tell Cortex-R a server's results can be believed (or, with --never, never to run a tool).
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { trustFileOf, updateTrust } from '../policy/trust-store.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

export interface TrustOptions {
  /** Never run it (refused in every question) instead of trusting it. */
  never?: boolean;
  /** Take a trust or a "never" back. */
  remove?: boolean;
}

/**
 * Records the person's word about a server (every tool) or one tool, in the profile's trust file: trusted results count
 * as the user's own words (no caution, no "outside content" label) and a tool that says nothing of what it does is
 * taken as a read; "never" refuses it. What the flow policy does with a place stays as it is.
 */
export async function serversTrust(config: LoadedConfig, id: string, tool: string | undefined, out: Output, options: TrustOptions = {}): Promise<number> {
  const known = [...config.servers.map((s) => s.id), ...config.disabledServers.map((s) => s.id)];
  if (!known.includes(id)) throw new UsageError(`no server "${id}" is configured (configured: ${known.join(', ') || 'none'}); see \`cortex servers\``);
  const entry = `${id}.${tool ?? '*'}`;
  const file = trustFileOf(config.profileFile);
  const list = options.never ? 'never' : 'trusted';
  await updateTrust(file, list, entry, !options.remove);
  const what = tool ? `${id}.${tool}` : `every tool of ${id}`;
  if (options.remove) out.line(`${what}: no longer ${options.never ? 'refused' : 'trusted'} (${file})`);
  else if (options.never) out.line(`${what} will never run; undo with: cortex servers trust ${id}${tool ? ` ${tool}` : ''} --never --remove (${file})`);
  else out.line(`Trusted ${what}: its results count as your own data, and a tool that says nothing of what it does is taken as only reading. Undo with --remove. (${file})`);
  return EXIT.ok;
}
