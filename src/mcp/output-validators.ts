// Tools' output-schema checks for the SDK v1 client, compiled on a tool's first call instead of when its server lists
// it: a first question no longer waits for every listed tool's schema to compile (15 for math), and one tool's
// broken schema fails that tool's calls before they are sent, as SDK v2 does (SEP-2106), not the server's whole listing.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

type Compiled = { ok: true; check: JsonSchemaValidator<unknown> } | { ok: false; error: unknown };

/** Most schemas kept compiled; past it the oldest is dropped (and compiled again if called again). */
const MAX_COMPILED_SCHEMAS = 500;
/** Most characters of the validator's own complaint kept in the message. */
const MAX_REASON_CHARS = 300;

/** A tool's output schema that the validator cannot compile; the call is not sent. */
export class UnusableOutputSchemaError extends Error {
  constructor(cause: unknown) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/\s+/g, ' ').slice(0, MAX_REASON_CHARS);
    super(`its output schema cannot be used to check its results (${reason}), so it was not called`, { cause });
    this.name = 'UnusableOutputSchemaError';
  }
}

/**
 * The client's `jsonSchemaValidator`: each schema compiles once, on first use, with the validator `load` gives (the
 * SDK's ajv one, whose code is imported then). `prepare` runs before each call, so the check that follows its result
 * always finds the validator loaded and the schema compiled.
 */
export class LazyOutputValidators implements jsonSchemaValidator {
  private readonly compiled = new Map<string, Compiled>();
  /** Each schema object's key in `compiled`: a tool's schema is the same object on every call, serialised once. */
  private readonly keys = new WeakMap<object, string>();
  private loading: Promise<jsonSchemaValidator> | undefined;
  private inner: jsonSchemaValidator | undefined;

  constructor(private readonly load: () => Promise<jsonSchemaValidator>) {}

  /** Starts loading the validator, so a later `prepare` does not wait for it. */
  warm(): void {
    this.loaded().catch(() => undefined);
  }

  /** What the SDK asks for on tools/list: a check that compiles `schema` the first time it runs. */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (input) => {
      // Not prepared (cannot happen through the session): refuse the result rather than pass it unchecked.
      if (!this.inner) throw new Error('the output-schema checker is not loaded');
      const compiled = this.compile(this.inner, schema);
      if (!compiled.ok) throw new UnusableOutputSchemaError(compiled.error);
      return compiled.check(input) as ReturnType<JsonSchemaValidator<T>>;
    };
  }

  /** Compiles `schema` before a call is sent. @throws UnusableOutputSchemaError when it cannot be compiled. */
  async prepare(schema: unknown): Promise<void> {
    if (!schema || typeof schema !== 'object') return;
    const compiled = this.compile(this.inner ?? (await this.loaded()), schema as JsonSchemaType);
    if (!compiled.ok) throw new UnusableOutputSchemaError(compiled.error);
  }

  private loaded(): Promise<jsonSchemaValidator> {
    this.loading ??= this.load().then((inner) => (this.inner = inner));
    return this.loading;
  }

  private compile(inner: jsonSchemaValidator, schema: JsonSchemaType): Compiled {
    let key = this.keys.get(schema);
    if (key === undefined) this.keys.set(schema, (key = JSON.stringify(schema)));
    let compiled = this.compiled.get(key);
    if (compiled) return compiled;
    try {
      compiled = { ok: true, check: inner.getValidator(schema) };
    } catch (error) {
      compiled = { ok: false, error };
    }
    if (this.compiled.size >= MAX_COMPILED_SCHEMAS) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(key, compiled);
    return compiled;
  }
}
