// Typed errors shared by every stage; only the CLI turns them into messages and exit codes.

/** Base class: every error we raise on purpose has a stable `code`. */
export class CortexError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A config file is missing, unreadable or invalid. Names the file, the line, the key and what was expected. */
export class ConfigError extends CortexError {
  constructor(
    readonly file: string,
    readonly key: string,
    readonly expected: string,
    readonly options: { line?: number; cause?: unknown } = {},
  ) {
    const where = options.line ? `${file}:${options.line}` : file;
    super('config', `${where}: ${key ? `${key}: ` : ''}${expected}`, options);
  }
}

/** No LLM could be reached or none is configured; the message says how to set one up. */
export class LlmUnavailableError extends CortexError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('llm_unavailable', message, options);
  }
}

/** An LLM request failed after its retries (HTTP error, timeout, malformed answer). */
export class LlmRequestError extends CortexError {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super('llm_request', `${provider}: ${message}`, options);
  }
}

/** No plan can run: the sandbox's worker cannot start on this machine (isolated-vm does not load); the message says how to fix it. */
export class SandboxUnavailableError extends CortexError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('sandbox_unavailable', message, options);
  }
}

/** An MCP server could not be started, crashed, or a tool call failed at the transport level. */
export class McpError extends CortexError {
  constructor(
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('mcp', `MCP server "${server}": ${message}`, options);
  }
}

/** The user asked for something that does not exist (unknown server id, tool, strategy...). */
export class UsageError extends CortexError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('usage', message, options);
  }
}

/** Text of an unknown thrown value, for messages. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How deep `causeMatching` follows `cause` links (fetch and other wrappers nest the real error twice or more). */
const MAX_CAUSE_DEPTH = 5;

/** The first error in `err`'s `cause` chain (itself included, at most 5 deep) that `test` accepts. */
export function causeMatching(err: unknown, test: (e: Error) => boolean): Error | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (test(current)) return current;
    current = current.cause;
  }
  return undefined;
}

/** A question is already running in this session; session files are written by one question at a time. */
export class SessionBusyError extends CortexError {
  constructor(readonly sessionId: string) {
    super('session_busy', `session ${sessionId} is answering another question; wait for it to finish or use another session`);
  }
}

/** No saved session has this id. */
export class SessionNotFoundError extends CortexError {
  constructor(readonly sessionId: string, options?: { cause?: unknown }) {
    super('session_not_found', `no session ${sessionId} (see \`cortex sessions\`)`, options);
  }
}

/** Most model names a ModelNotFoundError lists; the rest are counted. */
const MAX_NAMED_MODELS = 12;

/**
 * The provider does not serve the configured model (HTTP 404, or absent from its model list). Names the setting
 * to change and the models that do exist; for Ollama, how to pull it. An LlmRequestError with status 404.
 */
export class ModelNotFoundError extends LlmRequestError {
  constructor(
    provider: string,
    readonly model: string,
    /** Where the model name was set, e.g. "models.gemini.model in config/models.yaml, or --model". */
    readonly setting: string,
    /** Models the provider does serve (may be empty when the list could not be read). */
    readonly available: string[],
    options?: { cause?: unknown },
  ) {
    const shown = available.slice(0, MAX_NAMED_MODELS).join(', ');
    const more = available.length > MAX_NAMED_MODELS ? ` and ${available.length - MAX_NAMED_MODELS} more` : '';
    const exist = available.length ? ` Available: ${shown}${more}.` : '';
    const pull = provider === 'ollama' ? ` Run \`ollama pull ${model}\`, or change ${setting}.` : ` Change ${setting}.`;
    super(provider, `model "${model}" is not available.${pull}${exist}`, 404, options);
  }
}

/**
 * The question was stopped on the user's own terms before it finished: a budget ran out, or a hook refused to let it
 * go on. Not a fault: the run ends with status gave_up and this message as its reason (what it spent, which rule).
 */
export class QuestionStoppedError extends CortexError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('stopped', message, options);
  }
}
