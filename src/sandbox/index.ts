// The sandbox's public surface: run LLM-written solve() safely, prepare code, render the tool catalogue.
export { createSandbox, ProcessSandbox, type CreateSandboxOptions } from './create-sandbox.js';
export { prepareCode, type PreparedCode } from './prepare-code.js';
export { renderToolCatalogue } from './catalogue.js';
export { endsMidCode, joinContinuation } from './reply-continuation.js';
export { normaliseValue } from './normalise-value.js';
export { resolveLimits } from './limits.js';
export * from './types.js';
