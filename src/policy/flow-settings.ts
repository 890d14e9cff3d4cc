// The flow policy as the profile and the configured servers set it.
import type { ServerSpec } from '../config/server-spec.js';
import { ownServerKind, type OwnServerKind } from '../config/server-env.js';
import type { Profile } from '../config/profiles.js';
import type { FlowPolicy } from './flow-guard.js';
import { knownServerKind, type KnownServerKind } from './known-servers.js';
import type { TrustChoices } from './trust-store.js';

/** Our own servers (our built entries run with this Node), by id, with which of ours each is. */
function ownServerKinds(specs: readonly ServerSpec[]): Map<string, OwnServerKind> {
  const kinds = new Map<string, OwnServerKind>();
  for (const s of specs) {
    const kind = s.command === process.execPath && s.args[0] !== undefined ? ownServerKind(s.args[0]) : null;
    if (kind) kinds.set(s.id, kind);
  }
  return kinds;
}

/** Third-party servers the host knows by package (known-servers.ts), by id. */
export function knownServerKinds(specs: readonly ServerSpec[]): Map<string, KnownServerKind> {
  const kinds = new Map<string, KnownServerKind>();
  for (const s of specs) {
    const kind = ownServerKind(s.args[0] ?? '') ? null : knownServerKind(s);
    if (kind) kinds.set(s.id, kind);
  }
  return kinds;
}

/** The profile's `policy` section and the servers, as the FlowGuard wants them; `trusted`: tools the user trusts (`cortex servers trust`). */
export function flowPolicyOf(profile: Pick<Profile, 'policy'>, specs: readonly ServerSpec[], { trusted = [], never = [] }: Partial<TrustChoices> = {}): FlowPolicy {
  return {
    ownServers: ownServerKinds(specs),
    knownServers: knownServerKinds(specs),
    tools: profile.policy.tools,
    trusted,
    never,
    destinations: profile.policy.destinations,
    strict: profile.policy.strict,
  };
}
