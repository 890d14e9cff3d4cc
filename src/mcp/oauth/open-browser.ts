// Opens a URL the way CLIs do: $BROWSER when set, else the platform's opener. Never throws; the URL is printed anyway.
import { spawn } from 'node:child_process';

/** The command to run for `url`: `$BROWSER` (a `%s` in it stands for the URL, else the URL is appended), else open / start / xdg-open. */
export function browserCommand(url: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): { command: string; args: string[] } {
  const browser = env.BROWSER?.trim();
  if (browser) {
    const words = browser.split(/\s+/);
    const args = words.slice(1);
    return args.some((a) => a.includes('%s'))
      ? { command: words[0]!, args: args.map((a) => a.replaceAll('%s', url)) }
      : { command: words[0]!, args: [...args, url] };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url.replaceAll('&', '^&')] };
  return { command: 'xdg-open', args: [url] };
}

/** Starts the browser detached; a missing opener is not an error (the person opens the printed URL). */
export function openBrowser(url: string): void {
  const { command, args } = browserCommand(url);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Nothing to open it with: the printed URL is the way.
  }
}
