// Checks on a host NAME, made before any DNS lookup (a name is already data sent out), and the mark our fetches carry.

/**
 * Header every fetch made by our web tools and indexer carries. `cortex serve` refuses any request that has it, so
 * a page cannot steer the web tools into the machine's own API (e.g. `/v1/sessions`), on whatever port or address it
 * listens, even with block_private_network off.
 */
export const TOOL_FETCH_HEADER = 'x-cortex-r-tool-fetch';

/** True when a request came from one of our own web tools (see TOOL_FETCH_HEADER). */
export function isToolFetch(headers: Record<string, string | string[] | undefined>): boolean {
  return headers[TOOL_FETCH_HEADER] !== undefined;
}

/** Names of cloud metadata services: refused whatever the config says, before the name is resolved. */
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.com']);

/** Names that mean this machine or the local network, by their form alone (RFC 6761, 6762, 8375). */
const LOCAL_NAME = /(^|\.)(localhost|localdomain|local|internal|lan|home\.arpa)$/;

/** DNS limits (RFC 1035): a longer name cannot be a real host, and is the shape of data smuggled in a lookup. */
const MAX_HOST_NAME_CHARS = 253;
const MAX_LABEL_CHARS = 63;

/**
 * Why the host name `host` (lower case, as URL parsing leaves it; not an IP literal) must not even be looked up, or
 * undefined. Metadata service names and malformed names are always refused; names of this machine or the local
 * network (localhost, *.local, *.internal, single-label names…) when `blockPrivateNetwork` is on.
 */
export function hostNameRefusal(host: string, { blockPrivateNetwork }: { blockPrivateNetwork: boolean }): string | undefined {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (METADATA_NAMES.has(name)) return 'the name of a cloud metadata service';
  if (name.length > MAX_HOST_NAME_CHARS || name.split('.').some((label) => label.length === 0 || label.length > MAX_LABEL_CHARS)) {
    return 'not a valid host name (too long, or an empty or over-long label)';
  }
  if (!/^[a-z0-9_.-]+$/.test(name)) return 'not a valid host name';
  if (!blockPrivateNetwork) return undefined;
  if (LOCAL_NAME.test(name)) return 'a name of this machine or the local network';
  if (!name.includes('.')) return 'a single-label name, which only the local network resolves';
  return undefined;
}
