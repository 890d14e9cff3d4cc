// Entry of the `cortex` command: parses flags, loads config, runs one command, maps errors to exit codes.
import { Command, CommanderError } from 'commander';
import { loadConfig, type LoadedConfig } from './config/load-config.js';
import { serversList, serversTest } from './cli/servers-command.js';
import { EXIT, exitCodeFor } from './cli/exit-codes.js';
import { createOutput, type Output } from './cli/output.js';
import { errorMessage } from './errors.js';

interface GlobalOptions {
  profile?: string;
  models?: string;
  json?: boolean;
  verbose?: boolean;
  quiet?: boolean;
}

function buildProgram(run: (action: (config: LoadedConfig, out: Output) => Promise<number>) => Promise<void>): Command {
  const program = new Command('cortex')
    .description('Answers questions by having an LLM write code that calls tools on MCP servers.')
    .option('--profile <file>', 'profile to use (default: config/profiles.yaml)')
    .option('--models <file>', 'models file to use (default: models.yaml beside the profile)')
    .option('--json', 'print one JSON object on stdout; progress goes to stderr')
    .option('-v, --verbose', 'show more detail on stderr')
    .option('-q, --quiet', 'print only the result')
    .showHelpAfterError('(run `cortex --help` for usage)')
    .exitOverride();

  const servers = program.command('servers').description('list or check the configured MCP servers');
  servers
    .command('list', { isDefault: true })
    .description('start every server and show its status and tools')
    .action(() => run((config, out) => serversList(config, out)));
  servers
    .command('test <id>')
    .description("call each of a server's tools with its example arguments")
    .action((id: string) => run((config, out) => serversTest(config, id, out)));
  return program;
}

async function main(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  let out = createOutput({});
  const program = buildProgram(async (action) => {
    const opts = program.opts<GlobalOptions>();
    out = createOutput(opts);
    const config = loadConfig({ profilePath: opts.profile, modelsPath: opts.models });
    exitCode = await action(config, out);
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    out.error(`cortex: ${errorMessage(err)}`);
    if (out.verbose && err instanceof Error && exitCodeFor(err) === EXIT.error) out.error(err.stack ?? '');
    return exitCodeFor(err);
  }
}

process.exitCode = await main(process.argv);
