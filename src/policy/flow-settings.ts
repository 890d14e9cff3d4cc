// The flow policy as the profile and the configured servers set it.
import type { ServerSpec } from '../config/server-spec.js';
import { ownServerKind, type OwnServerKind } from '../config/server-env.js';
import type { Profile } from '../config/profiles.js';
import type { FlowPolicy } from './flow-guard.js';

/** Our own servers (our built entries run with this Node), by id, with which of ours each is. */
function ownServerKinds(specs: readonly ServerSpec[]): Map<string, OwnServerKind> {
  const kinds = new Map<string, OwnServerKind>();
  for (const s of specs) {
    const kind = s.command === process.execPath && s.args[0] !== undefined ? ownServerKind(s.args[0]) : null;
    if (kind) kinds.set(s.id, kind);
  }
  return kinds;
}

/** The profile's `policy` section and the servers, as the FlowGuard wants them. */
export function flowPolicyOf(profile: Pick<Profile, 'policy'>, specs: readonly ServerSpec[]): FlowPolicy {
  return { ownServers: ownServerKinds(specs), tools: profile.policy.tools, destinations: profile.policy.destinations, strict: profile.policy.strict };
}
