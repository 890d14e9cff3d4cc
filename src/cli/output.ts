// Where the CLI writes: results to stdout, progress and logs to stderr; colour only on a terminal without NO_COLOR.

/** Text styles; each returns its input unchanged when colour is off. */
export interface Palette {
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

export interface Output extends Palette {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** True when stderr (where progress goes) is a terminal. */
  readonly tty: boolean;
  /** Styles for text written to stderr (the Output's own methods style stdout text). */
  readonly err: Palette;
  /** A line of the command's human-readable result (stdout). */
  line(text: string): void;
  /** The command's single JSON result (stdout). */
  result(value: unknown): void;
  /** Progress or diagnostics (stderr); silent with --quiet or --json unless verbose. */
  info(text: string): void;
  /** A problem the user should see (stderr), whatever the flags. */
  error(text: string): void;
}

/** A palette that styles when `colour` is true (ANSI SGR codes). */
function palette(colour: boolean): Palette {
  const paint = (code: number) => (text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { green: paint(32), red: paint(31), dim: paint(2), bold: paint(1) };
}

export function createOutput(options: { json?: boolean; quiet?: boolean; verbose?: boolean }, env = process.env): Output {
  const tty = Boolean(process.stderr.isTTY);
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  const allowed = !env.NO_COLOR && env.TERM !== 'dumb';
  const json = Boolean(options.json);
  const quiet = Boolean(options.quiet);
  const verbose = Boolean(options.verbose);
  // With --json, stdout carries the one object only: whatever a dependency prints there (the ollama package logs
  // "Getting text from response" on an HTML error page) goes to stderr instead.
  const writeStdout = process.stdout.write.bind(process.stdout);
  if (json) process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return {
    ...palette(allowed && Boolean(process.stdout.isTTY)),
    err: palette(allowed && tty),
    json,
    quiet,
    verbose,
    tty,
    line: (text) => process.stdout.write(`${text}\n`),
    result: (value) => writeStdout(`${JSON.stringify(value, null, 2)}\n`),
    info: (text) => {
      if (verbose || (!quiet && !json)) process.stderr.write(`${text}\n`);
    },
    error: (text) => process.stderr.write(`${text}\n`),
  };
}
