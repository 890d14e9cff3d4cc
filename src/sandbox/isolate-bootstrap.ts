// The JavaScript evaluated first in every isolate: defines mcp, tools and console, then runs the model's solve().
import { normaliseValue } from './normalise-value.js';

/** Settings copied into the isolate for one run ($3 of the bootstrap closure). */
export interface BootstrapConfig {
  code: string;
  toolNames: string[];
  maxOutputChars: number;
  maxLogChars: number;
  maxLogLines: number;
  maxArgChars: number;
  maxErrorChars: number;
}

/**
 * Body of the `evalClosure` that sets up an isolate. Arguments: $0 call (Reference to the worker's
 * tool-call function, returns a Promise of a JSON reply), $1 log (Reference, takes one string), $2 done
 * (Reference, takes ok, kind, text — primitives only), $3 a copy of BootstrapConfig.
 *
 * The References live only in this closure: the model's code is compiled with `Function`, whose scope
 * is the global one, so it can never reach them. Intrinsics are captured before the model's code runs,
 * and only strings cross back out. Everything here that touches the model's values (JSON, getters,
 * toString, Proxy traps) runs inside the isolate, under its memory limit and the run's deadline.
 * The closure returns a promise that settles once `done` was called; the worker watches it to learn
 * whether the isolate died (memory) or its thread stopped after dispose.
 */
export const ISOLATE_BOOTSTRAP_SOURCE = `
'use strict';
const callRef = $0, logRef = $1, doneRef = $2, cfg = $3;
const refApply = callRef.apply, refApplyIgnored = logRef.applyIgnored;
const reflectApply = Reflect.apply, reflectGet = Reflect.get, defineProperty = Reflect.defineProperty;
const jsonStringify = JSON.stringify, jsonParse = JSON.parse;
const freeze = Object.freeze, create = Object.create, hasOwn = Object.hasOwn;
const StringFn = String, ErrorCtor = Error, SyntaxErrorCtor = SyntaxError, FunctionCtor = Function;
const PromiseCtor = Promise, ProxyCtor = Proxy, promiseThen = Promise.prototype.then;
const strSlice = String.prototype.slice, isArray = Array.isArray;
const errorKinds = new WeakMap(), weakGet = WeakMap.prototype.get, weakSet = WeakMap.prototype.set;

function nullObject(props) {
  const out = create(null);
  for (const key of Object.keys(props)) out[key] = props[key];
  return freeze(out);
}
// Null-prototype options: a polluted Object.prototype can't change how values cross the boundary.
const CALL_OPTIONS = nullObject({ arguments: nullObject({ copy: true }), result: nullObject({ promise: true, copy: true }) });

const normaliseValue = (() => {
  const JSON = freeze({ stringify: jsonStringify, parse: jsonParse });
  const String = StringFn;
  const Array = freeze({ isArray });
  return ${normaliseValue.toString()};
})();

function clip(text, max) {
  return text.length > max ? reflectApply(strSlice, text, [0, max]) + '…' : text;
}
function safeText(value) {
  try {
    if (typeof value === 'string') return value;
    if (value instanceof ErrorCtor) return describe(value);
    const json = jsonStringify(value);
    if (typeof json === 'string') return json;
  } catch {}
  try { return StringFn(value); } catch { return '[unprintable value]'; }
}
function describe(error) {
  try {
    if (error instanceof ErrorCtor) {
      const name = StringFn(error.name), message = StringFn(error.message);
      return clip(message ? name + ': ' + message : name, cfg.maxErrorChars);
    }
    return clip('Uncaught ' + (typeof error === 'string' ? error : safeText(error)), cfg.maxErrorChars);
  } catch {
    return 'an error that could not be described';
  }
}

let finished = false, resolveFinished;
const finishedPromise = new PromiseCtor((resolve) => { resolveFinished = resolve; });
function finish(ok, kind, text) {
  if (finished) return;
  finished = true;
  const safe = typeof text === 'string' ? clip(text, cfg.maxOutputChars + 1) : '';
  reflectApply(refApplyIgnored, doneRef, [undefined, [ok === true, StringFn(kind), safe]]);
  resolveFinished();
}

let logChars = 0, logLines = 0, logsCut = false;
function emit(prefix, args) {
  if (logsCut || finished) return;
  let line = prefix;
  for (let i = 0; i < args.length && line.length <= cfg.maxLogChars; i++) line += (i > 0 ? ' ' : '') + safeText(args[i]);
  if (logLines >= cfg.maxLogLines || logChars + line.length > cfg.maxLogChars) {
    logsCut = true;
    line = '[further console output dropped: the limit is ' + cfg.maxLogLines + ' lines / ' + cfg.maxLogChars + ' characters]';
  }
  logChars += line.length;
  logLines++;
  reflectApply(refApplyIgnored, logRef, [undefined, [line]]);
}
const consoleObject = freeze({
  log: (...args) => emit('', args),
  info: (...args) => emit('', args),
  debug: (...args) => emit('', args),
  warn: (...args) => emit('[warn] ', args),
  error: (...args) => emit('[error] ', args),
});

function toolError(kind, message) {
  const error = new ErrorCtor(message);
  error.name = kind === 'call_cap' ? 'CallCapError' : 'ToolError';
  reflectApply(weakSet, errorKinds, [error, kind]);
  return error;
}
async function callTool(name, list, mode) {
  if (finished) throw toolError('tool_error', 'The run has ended.');
  let json;
  try { json = jsonStringify(list); } catch (e) {
    throw toolError('tool_error', 'Arguments for ' + clip(name, 100) + ' could not be turned into JSON: ' + describe(e));
  }
  if (typeof json !== 'string') json = '[]';
  if (json.length + name.length > cfg.maxArgChars) {
    throw toolError('tool_error', 'Arguments for ' + clip(name, 100) + ' are ' + json.length + ' characters of JSON; the limit is ' + cfg.maxArgChars + '. Pass smaller inputs.');
  }
  const reply = await reflectApply(refApply, callRef, [undefined, [name, json, mode], CALL_OPTIONS]);
  let parsed;
  try { parsed = jsonParse(StringFn(reply)); } catch { throw toolError('tool_error', 'The tool proxy sent an unreadable reply.'); }
  if (parsed.ok === true) return parsed.value;
  throw toolError(parsed.kind === 'call_cap' ? 'call_cap' : 'tool_error', StringFn(parsed.message));
}

const toolFunctions = {};
for (const name of cfg.toolNames) {
  defineProperty(toolFunctions, name, { value: (...args) => callTool(name, args, 'parsed'), enumerable: true });
}
freeze(toolFunctions);
const tools = new ProxyCtor(toolFunctions, {
  get(target, key, receiver) {
    if (typeof key !== 'string' || key in target || key === 'then' || key === 'toJSON') return reflectGet(target, key, receiver);
    // An unknown name still calls through, so the host can answer with the closest real names.
    return (...args) => callTool(key, args, 'parsed');
  },
});
const mcp = freeze({
  call_tool: (name, args) => callTool(StringFn(name), [args], 'raw'),
  callTool: (name, args) => callTool(StringFn(name), [args], 'raw'),
  // The URI travels as the call's name; the host routes it to the server that owns it.
  read_resource: (uri) => callTool(StringFn(uri), [], 'resource'),
  readResource: (uri) => callTool(StringFn(uri), [], 'resource'),
  // Answered on the host from the run's catalogue (tool-search.ts); not tool calls.
  search_tools: (query, limit) => callTool(StringFn(query ?? ''), [limit], 'search'),
  searchTools: (query, limit) => callTool(StringFn(query ?? ''), [limit], 'search'),
  describe_tool: (name) => callTool(StringFn(name), [], 'describe'),
  describeTool: (name) => callTool(StringFn(name), [], 'describe'),
});
defineProperty(globalThis, 'tools', { value: tools, writable: true, configurable: true });
defineProperty(globalThis, 'mcp', { value: mcp, writable: true, configurable: true });
// Asks the person and resolves to their answer (a string); answered on the host, not a tool call.
const askUser = (question, options) => callTool(StringFn(question ?? ''), [options ?? null], 'ask');
defineProperty(globalThis, 'ask_user', { value: askUser, writable: true, configurable: true });
defineProperty(globalThis, 'askUser', { value: askUser, writable: true, configurable: true });
defineProperty(globalThis, 'console', { value: consoleObject, writable: true, configurable: true });

function onValue(value) {
  let text;
  try { text = normaliseValue(value); } catch (e) {
    finish(false, 'runtime', 'solve() returned a value that could not be turned into text: ' + describe(e));
    return;
  }
  if (typeof text !== 'string') text = safeText(text);
  if (text.length > cfg.maxOutputChars) finish(false, 'output_limit', StringFn(text.length));
  else finish(true, '', text);
}
function onError(error) {
  const kind = reflectApply(weakGet, errorKinds, [error]);
  finish(false, kind === 'call_cap' || kind === 'tool_error' ? kind : 'runtime', describe(error));
}

let solve;
try {
  solve = FunctionCtor(cfg.code + '\\n;return typeof solve === "function" ? solve : undefined;')();
} catch (e) {
  finish(false, e instanceof SyntaxErrorCtor ? 'syntax' : 'runtime', describe(e));
  return finishedPromise;
}
if (typeof solve !== 'function') {
  finish(false, 'no_solve', 'solve is not defined as a function');
  return finishedPromise;
}
reflectApply(promiseThen, (async () => solve())(), [onValue, onError]);
return finishedPromise;
`;
