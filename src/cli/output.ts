// Where the CLI writes: results to stdout, progress and logs to stderr; colour only on a TTY without NO_COLOR.

export interface Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly tty: boolean;
  /** A line of the command's human-readable result (stdout). */
  line(text: string): void;
  /** The command's single JSON result (stdout). */
  result(value: unknown): void;
  /** Progress or diagnostics (stderr); silent with --quiet or --json unless verbose. */
  info(text: string): void;
  /** A problem the user should see (stderr), whatever the flags. */
  error(text: string): void;
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

export function createOutput(options: { json?: boolean; quiet?: boolean; verbose?: boolean }, env = process.env): Output {
  const tty = Boolean(process.stderr.isTTY);
  const colour = Boolean(process.stdout.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  const paint = (code: number) => (text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const json = Boolean(options.json);
  const quiet = Boolean(options.quiet);
  const verbose = Boolean(options.verbose);
  return {
    json,
    quiet,
    verbose,
    tty,
    line: (text) => process.stdout.write(`${text}\n`),
    result: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    info: (text) => {
      if (verbose || (!quiet && !json)) process.stderr.write(`${text}\n`);
    },
    error: (text) => process.stderr.write(`${text}\n`),
    green: paint(32),
    red: paint(31),
    dim: paint(2),
  };
}
