// Runs a command with its own /etc/hosts (a user + mount namespace, no root needed), so a host name can resolve to an address with no route.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The kernel refuses a TCP connect to the broadcast address with ENETUNREACH at once, before any packet leaves. */
export const NO_ROUTE_ADDRESS = '255.255.255.255';
/** A name the hosts file below maps to NO_ROUTE_ADDRESS. */
export const NO_ROUTE_HOST = 'no-route.test';

/**
 * `command args` wrapped to run with a hosts file mapping NO_ROUTE_HOST to NO_ROUTE_ADDRESS: `unshare -rm` (util-linux)
 * gives the process its own mount namespace, where the file is bind-mounted over /etc/hosts for it alone.
 */
export function withNoRouteHost(command: string, args: string[]): { command: string; args: string[] } {
  const hosts = join(mkdtempSync(join(tmpdir(), 'cortex-hosts-')), 'hosts');
  writeFileSync(hosts, `127.0.0.1 localhost\n::1 localhost\n${NO_ROUTE_ADDRESS} ${NO_ROUTE_HOST}\n`);
  const quoted = [command, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return { command: 'unshare', args: ['-rm', 'sh', '-c', `mount --bind '${hosts}' /etc/hosts && exec ${quoted}`] };
}
