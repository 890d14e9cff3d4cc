// Sign-in state of remote MCP servers, one file per server URL, readable by the user alone (0600 in a 0700 folder).
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';

/** What is kept for one server. The SDK stamps client and tokens with the issuer they belong to. */
export interface SignIn {
  serverUrl: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
  /** The scope a run last needed (a 403 insufficient_scope asks for more): the next sign-in asks for it. */
  scope?: string;
}

/** Largest sign-in file read; anything bigger is not ours and is ignored. */
const MAX_SIGN_IN_FILE_BYTES = 256 * 1024;

/** Files under `dir` (the profile's cache folder + `oauth`), keyed by a hash of the server's URL. */
export class OAuthStore {
  constructor(readonly dir: string) {}

  /** The file of one server (exported for tests and `cortex servers logout`). */
  fileOf(serverUrl: string): string {
    return join(this.dir, `${createHash('sha256').update(serverUrl).digest('hex').slice(0, 32)}.json`);
  }

  load(serverUrl: string): SignIn {
    try {
      const text = readFileSync(this.fileOf(serverUrl), 'utf8');
      if (text.length > MAX_SIGN_IN_FILE_BYTES) return { serverUrl };
      const data = JSON.parse(text) as SignIn;
      return data.serverUrl === serverUrl ? data : { serverUrl };
    } catch {
      return { serverUrl };
    }
  }

  /** Replaces the server's file atomically; the file is created 0600 and its folder 0700. */
  save(signIn: SignIn): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const file = this.fileOf(signIn.serverUrl);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(signIn), { mode: 0o600 });
    renameSync(temp, file);
  }

  update(serverUrl: string, change: (current: SignIn) => SignIn): void {
    this.save(change(this.load(serverUrl)));
  }

  /** Forgets a server's sign-in; true when there was one. */
  remove(serverUrl: string): boolean {
    const had = this.load(serverUrl).tokens !== undefined;
    rmSync(this.fileOf(serverUrl), { force: true });
    return had;
  }
}
