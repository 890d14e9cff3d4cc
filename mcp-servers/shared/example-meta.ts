// The `_meta` keys a tool uses to carry example arguments for the standalone check (`cortex servers test <id>`).

/** `_meta` key holding the example arguments of a tool: an object the check passes to tools/call as-is. */
export const EXAMPLE_META_KEY = 'cortex-r/example';

/**
 * `_meta` key set to `true` when the example is meant to fail cleanly (a result with `isError`), for tools
 * whose real input cannot be known in advance (a file path). The check then passes on a clean isError
 * result and fails on a success or a protocol error.
 */
export const EXAMPLE_EXPECTS_ERROR_META_KEY = 'cortex-r/example-expects-error';

/** Options for {@link exampleMeta}. */
export interface ExampleMetaOptions {
  /** The example is expected to come back as an isError result. Default false. */
  expectsError?: boolean;
}

/**
 * The `_meta` object for `registerTool`, e.g. `exampleMeta({a: 2, b: 3})` →
 * `{"cortex-r/example": {a: 2, b: 3}}`. The SDK copies a tool's `_meta` into tools/list as-is.
 */
export function exampleMeta(args: Record<string, unknown>, { expectsError = false }: ExampleMetaOptions = {}): Record<string, unknown> {
  return expectsError ? { [EXAMPLE_META_KEY]: args, [EXAMPLE_EXPECTS_ERROR_META_KEY]: true } : { [EXAMPLE_META_KEY]: args };
}

/** What {@link readExample} found in a listed tool's `_meta`. */
export interface ToolExample {
  args: Record<string, unknown>;
  expectsError: boolean;
}

/**
 * Reads the example back from a tool's `_meta` as listed by tools/list (for the standalone check);
 * undefined when the tool has none or it is not an object.
 */
export function readExample(meta: Record<string, unknown> | undefined): ToolExample | undefined {
  const args = meta?.[EXAMPLE_META_KEY];
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
  return { args: args as Record<string, unknown>, expectsError: meta?.[EXAMPLE_EXPECTS_ERROR_META_KEY] === true };
}
