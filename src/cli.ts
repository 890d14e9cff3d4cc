// Entry of the `cortex` command: parses flags, loads config, runs one command, maps errors to exit codes.
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { loadDotEnv } from './config/dot-env.js';
import { loadConfig, type LoadedConfig } from './config/load-config.js';
import type { RuntimeOptions } from './runtime/runtime.js';
import { EXIT, exitCodeFor } from './cli/exit-codes.js';
import { ignoreAbandonedAborts } from './cli/abandoned-aborts.js';
import { createOutput, type Output } from './cli/output.js';
import { errorResultJson } from './runtime/result-json.js';
import { CortexError, errorMessage } from './errors.js';
import { VERSION } from './version.js';

interface GlobalOptions extends RuntimeOptions {
  profile?: string;
  mcpConfig?: string[];
  models?: string;
  json?: boolean;
  verbose?: boolean;
  quiet?: boolean;
  tokenBudget?: number;
}

function buildProgram(run: (action: (config: LoadedConfig, out: Output) => Promise<number>) => Promise<void>): Command {
  const program = new Command('cortex')
    .description('Answers questions by having an LLM write code that calls tools on MCP servers.')
    .option('--profile <file>', 'profile to use (default: config/profiles.yaml)')
    .option('--models <file>', 'models file to use (default: models.yaml beside the profile)')
    .option(
      '--mcp-config <file>',
      'more MCP servers from a Claude Desktop, Claude Code (.mcp.json), VS Code or Cursor config (repeatable)',
      (file: string, files: string[]) => [...files, file],
      [] as string[],
    )
    .option('--json', 'print one JSON object on stdout; progress goes to stderr')
    .option('-v, --verbose', 'show more detail on stderr')
    .option('-q, --quiet', 'print only the result')
    .option('--strategy <name>', 'conservative | exploratory-parallel | exploratory-sequential (overrides the profile)')
    .option('--model <name>', 'a key of models.yaml, a provider model (ollama:llama3.1:8b, gemini:gemini-2.5-pro), or auto')
    .option('--session <id>', 'continue a saved session (see `cortex sessions`)')
    .option('-y, --yes', 'run tools that need approval without asking (see README "Approvals")')
    .option('--token-budget <n>', 'most tokens one question may spend on the model (see docs/budgets.md)', parseTokenBudget)
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run `cortex --help` for usage)')
    // Words after `cortex` that name no command reach the default action, which reports them as an unknown command.
    .allowExcessArguments(true)
    .exitOverride();

  // Commands load their modules on use, so `--help` or `sessions` does not pay for the LLM SDKs.
  program.action(() => {
    // commander's own "unknown command" error, with its "Did you mean ask?" (it is not reached when the program has an action).
    // `cortex "What is 6 times 7?"` asks, as `llm "…"` does: a command name never holds a space, so a sentence is a question.
    if (program.args.some((word) => /\s/.test(word))) {
      return run(async (config, out) => (await import('./cli/ask-command.js')).askCommand(config, program.args, runtimeOptions(program), out));
    }
    // `cortex version` (or `cortex verbose`): the word names one of cortex's flags, so point at the flag.
    const flag = program.options.find((o) => program.args.length === 1 && o.long === `--${program.args[0]}`);
    if (flag) program.error(`error: unknown command '${program.args[0]}'\n(Did you mean ${flag.long}?)`, { exitCode: 2, code: 'commander.unknownCommand' });
    if (program.args.length > 0) (program as unknown as { unknownCommand(): never }).unknownCommand();
    return run(async (config, out) => (await import('./cli/repl.js')).replCommand(config, runtimeOptions(program), out));
  });
  program
    .command('ask <question...>')
    .description('answer one question and exit (`-` reads the question from stdin; piped text is added as context)')
    .option('-c, --continue', 'continue the latest session')
    .option('--record <file>', 'write every LLM request and reply of the run to <file> (JSON Lines)')
    .option('--replay <file>', 'answer with the replies recorded in <file>, without any LLM')
    .action((words: string[], opts: AskFlags) =>
      run(async (config, out) =>
        (await import('./cli/ask-command.js')).askCommand(config, words, { ...runtimeOptions(program), ...askOptions(opts) }, out),
      ),
    );
  const sessions = program.command('sessions').description('list, show or delete saved sessions');
  sessions
    .command('list', { isDefault: true })
    .description('list saved sessions, newest first: start (local time), questions, last outcome, first question')
    .option('-n, --limit <n>', 'how many to show', '20')
    .action((opts: { limit: string }) =>
      run(async (config, out) =>
        (await import('./cli/sessions-command.js')).sessionsCommand(config, Number.parseInt(opts.limit, 10) || 20, out),
      ),
    );
  sessions
    .command('show <id>')
    .description("a session's questions, the code of each plan, and the answers")
    .action((id: string) => run(async (config, out) => (await import('./cli/sessions-command.js')).sessionShowCommand(config, id, out)));
  sessions
    .command('rm <id>')
    .description('delete a saved session')
    .action((id: string) => run(async (config, out) => (await import('./cli/sessions-command.js')).sessionRemoveCommand(config, id, out)));

  const skills = program.command('skills').description('saved plans: list them, save the last answered one, run one again without a model');
  skills
    .command('list', { isDefault: true })
    .description('list the saved plans and their arguments')
    .action(() => run(async (config, out) => (await import('./cli/skills-command.js')).skillsListCommand(config, out)));
  skills
    .command('save <name>')
    .description("save the plan that answered the last question of a session (the latest, or --session ID) as <name>")
    .action((name: string) =>
      run(async (config, out) => (await import('./cli/skills-command.js')).skillsSaveCommand(config, name, runtimeOptions(program).session, out)),
    );
  skills
    .command('run <name> [args]')
    .description('run a saved plan again with no model call; [args] is a JSON object, e.g. \'{"string": "FRANCE"}\'')
    .action((name: string, args: string | undefined) =>
      run(async (config, out) => (await import('./cli/skills-command.js')).skillsRunCommand(config, name, args, runtimeOptions(program), out)),
    );

  program
    .command('models')
    .description('list the models each configured provider serves, the default, and what auto picks')
    .action(() =>
      run(async (config, out) => (await import('./cli/models-command.js')).modelsCommand(config, runtimeOptions(program), out)),
    );

  program
    .command('serve')
    .description('serve the HTTP API (live events) and the web page')
    .option('--host <address>', 'address to bind (default: the profile, 127.0.0.1); not loopback needs CORTEX_API_TOKEN')
    .option('--port <n>', 'port (default: the profile, 8765; 0 picks a free one)')
    .action((opts: { host?: string; port?: string }) =>
      run(async (config, out) =>
        (await import('./cli/serve-command.js')).serveCommand(
          config,
          { ...runtimeOptions(program), ...(opts.host ? { host: opts.host } : {}), ...(opts.port !== undefined ? { port: Number(opts.port) } : {}) },
          out,
        ),
      ),
    );
  program
    .command('mcp')
    .description('run Cortex-R as an MCP server on stdio, or with --http over Streamable HTTP (tool: ask)')
    .option('--http <port>', 'serve MCP over HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0 picks a free port)')
    .option('--host <address>', 'with --http: address to bind (default 127.0.0.1); not loopback needs CORTEX_API_TOKEN')
    .action((opts: { http?: string; host?: string }) =>
      run(async (config, out) =>
        (await import('./cli/mcp-command.js')).mcpCommand(
          config,
          { ...runtimeOptions(program), ...(opts.http !== undefined ? { http: Number(opts.http) } : {}), ...(opts.host ? { host: opts.host } : {}) },
          out,
        ),
      ),
    );

  program
    .command('index')
    .description('index the documents folder for search (only new and changed files)')
    .option('--rebuild', 're-extract and re-embed every file')
    .option('--strict', 'exit with status 1 when a file could not be indexed')
    .action((opts: { rebuild?: boolean; strict?: boolean }) =>
      run(async (config, out) =>
        (await import('./cli/index-command.js')).indexCommand(config, { rebuild: Boolean(opts.rebuild), strict: Boolean(opts.strict) }, out),
      ),
    );

  program
    .command('eval-retrieval <dir>')
    .description('score vector, BM25 and fused search on a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/test.tsv)')
    .allowExcessArguments(false)
    .action((dir: string) => run(async (config, out) => (await import('./cli/eval-retrieval-command.js')).evalRetrievalCommand(config, dir, out)));

  const servers = program.command('servers').description('list or check the configured MCP servers');
  servers
    .command('list', { isDefault: true })
    .description('start every server and show its status and tools')
    .action(() => run(async (config, out) => (await import('./cli/servers-command.js')).serversList(config, out)));
  servers
    .command('test <id>')
    .description("call each of a server's tools it can: with its example, --args, or no arguments when none are required")
    .option('--args <json>', 'arguments per tool, e.g. \'{"echo": {"message": "hi"}}\'')
    .option('--all', 'also call tools not marked read-only (asking first, as `ask` does, unless --yes)')
    .action((id: string, opts: { args?: string; all?: boolean }) =>
      run(async (config, out) =>
        (await import('./cli/servers-command.js')).serversTest(config, id, out, opts.args, { all: Boolean(opts.all), yes: Boolean(program.opts<GlobalOptions>().yes) }),
      ),
    );
  servers
    .command('trust <id> [tool]')
    .description("believe a server's (or one tool's) results and take its unlabelled tools as reads; --never: never run it")
    .option('--never', 'never run it instead')
    .option('--remove', 'take it back')
    .action((id: string, tool: string | undefined, opts: { never?: boolean; remove?: boolean }) =>
      run(async (config, out) => (await import('./cli/trust-command.js')).serversTrust(config, id, tool, out, opts)),
    );
  servers
    .command('login <id>')
    .description('sign in to a remote server in your browser (OAuth); the tokens are kept for later runs')
    .action((id: string) => run(async (config, out) => (await import('./cli/servers-login-command.js')).serversLogin(config, id, out)));
  servers
    .command('logout <id>')
    .description("forget a remote server's sign-in")
    .action((id: string) => run(async (config, out) => (await import('./cli/servers-login-command.js')).serversLogout(config, id, out)));
  return program;
}


function runtimeOptions(program: Command): RuntimeOptions {
  const { model, session, strategy, yes, tokenBudget } = program.opts<GlobalOptions>();
  return { ...(model ? { model } : {}), ...(session ? { session } : {}), ...(strategy ? { strategy } : {}), ...(yes ? { yes } : {}), ...(tokenBudget ? { tokenBudget } : {}) };
}

/** `--token-budget N`: a whole number of tokens, at least 1. */
function parseTokenBudget(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of tokens, at least 1');
  return n;
}

interface AskFlags {
  record?: string;
  replay?: string;
  continue?: boolean;
}

function askOptions({ record, replay, continue: latest }: AskFlags): RuntimeOptions & { continueLatest?: boolean } {
  return { ...(record ? { record } : {}), ...(replay ? { replay } : {}), ...(latest ? { continueLatest: true } : {}) };
}

async function main(argv: string[]): Promise<number> {
  ignoreAbandonedAborts();
  let exitCode: number = EXIT.ok;
  let out = createOutput({});
  const program = buildProgram(async (action) => {
    const opts = program.opts<GlobalOptions>();
    out = createOutput(opts);
    // Before the config is read, so its ${VAR}s and the model keys see the .env; names only are shown, never values.
    const dotEnv = loadDotEnv();
    if (dotEnv && out.verbose) {
      const kept = dotEnv.kept.length ? `; already set, kept: ${dotEnv.kept.join(', ')}` : '';
      out.info(`read ${dotEnv.file}: ${dotEnv.set.join(', ') || 'nothing new'}${kept}`);
    }
    const config = loadConfig({ profilePath: opts.profile, modelsPath: opts.models, mcpConfigFiles: opts.mcpConfig ?? [] });
    if (!opts.quiet) {
      for (const warning of config.warnings) out.error(`warning: ${warning}`);
      for (const off of config.disabledServers) if (off.kind === 'broken') out.error(`warning: MCP server "${off.id}" is disabled: ${off.reason}`);
    }
    exitCode = await action(config, out);
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (out.json) {
      // The same keys as every `ask --json` object (a bad config or flag stops the run before it has a session).
      const error = { code: err instanceof CortexError ? err.code : 'internal', message: errorMessage(err) };
      out.result(errorResultJson(error, { session_id: null, usage: { prompt_tokens: 0, completion_tokens: 0 }, timings: { total_ms: 0, llm_ms: 0, sandbox_ms: 0 } }));
    }
    out.error(`cortex: ${errorMessage(err)}`);
    if (out.verbose && err instanceof Error && exitCodeFor(err) === EXIT.error) out.error(err.stack ?? '');
    return exitCodeFor(err);
  }
}

process.exitCode = await main(process.argv);
