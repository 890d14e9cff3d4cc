// Checks tool arguments against the JSON-Schema subset MCP tools declare, with problems phrased for the model.

type Schema = Record<string, unknown>;

/** Problems reported per call; the first few are enough for the model to fix its call. */
const MAX_PROBLEMS = 5;
/** Nesting followed into a schema; deeper parts are accepted unchecked (tool schemas are shallow). */
const MAX_SCHEMA_DEPTH = 16;

/**
 * Validates `value` against `schema` (type, properties, required, additionalProperties, items,
 * enum, const, minimum/maximum, exclusive bounds, minLength/maxLength, minItems/maxItems, anyOf,
 * oneOf, allOf, nullable). Returns the problems found, empty when the value fits.
 */
export function checkArgs(schema: Schema, value: unknown): string[] {
  const problems: string[] = [];
  check(schema, value, 'arguments', problems, 0);
  return problems.slice(0, MAX_PROBLEMS);
}

function check(schema: Schema, value: unknown, path: string, problems: string[], depth: number): void {
  if (problems.length >= MAX_PROBLEMS || depth > MAX_SCHEMA_DEPTH) return;
  if (value === null && schema.nullable === true) return;
  const types = typeList(schema.type);
  if (types.length > 0 && !types.some((t) => hasType(value, t))) {
    problems.push(`${path} must be ${types.map(article).join(' or ')}, got ${describe(value)}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameJson(e, value))) {
    problems.push(`${path} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${describe(value)}`);
  }
  if ('const' in schema && !sameJson(schema.const, value)) {
    problems.push(`${path} must be ${JSON.stringify(schema.const)}, got ${describe(value)}`);
  }
  checkAlternatives(schema, value, path, problems, depth);
  if (typeof value === 'number') checkNumber(schema, value, path, problems);
  if (typeof value === 'string') checkLength(schema.minLength, schema.maxLength, value.length, `${path} must have`, 'characters', problems);
  if (Array.isArray(value)) checkArray(schema, value, path, problems, depth);
  else if (isPlainObject(value)) checkObject(schema, value, path, problems, depth);
}

function checkAlternatives(schema: Schema, value: unknown, path: string, problems: string[], depth: number): void {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options) || options.length === 0) continue;
    const fits = options.some((option) => isPlainObject(option) && checkArgsAt(option, value, path, depth + 1).length === 0);
    if (!fits) problems.push(`${path} does not match any allowed form (got ${describe(value)})`);
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) if (isPlainObject(part)) check(part, value, path, problems, depth + 1);
  }
}

function checkArgsAt(schema: Schema, value: unknown, path: string, depth: number): string[] {
  const problems: string[] = [];
  check(schema, value, path, problems, depth);
  return problems;
}

function checkNumber(schema: Schema, value: number, path: string, problems: string[]): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === 'number' && value < minimum) problems.push(`${path} must be ≥ ${minimum}, got ${value}`);
  if (typeof maximum === 'number' && value > maximum) problems.push(`${path} must be ≤ ${maximum}, got ${value}`);
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) problems.push(`${path} must be > ${exclusiveMinimum}, got ${value}`);
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) problems.push(`${path} must be < ${exclusiveMaximum}, got ${value}`);
}

function checkLength(min: unknown, max: unknown, length: number, what: string, unit: string, problems: string[]): void {
  if (typeof min === 'number' && length < min) problems.push(`${what} at least ${min} ${unit}, got ${length}`);
  if (typeof max === 'number' && length > max) problems.push(`${what} at most ${max} ${unit}, got ${length}`);
}

function checkArray(schema: Schema, value: unknown[], path: string, problems: string[], depth: number): void {
  checkLength(schema.minItems, schema.maxItems, value.length, `${path} must have`, 'items', problems);
  const { items } = schema;
  if (Array.isArray(items)) {
    items.forEach((s, i) => isPlainObject(s) && i < value.length && check(s, value[i], `${path}[${i}]`, problems, depth + 1));
  } else if (isPlainObject(items)) {
    // Bounded by MAX_PROBLEMS: check() returns at once when enough problems were found.
    for (let i = 0; i < value.length && problems.length < MAX_PROBLEMS; i++) check(items, value[i], `${path}[${i}]`, problems, depth + 1);
  }
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string, problems: string[], depth: number): void {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const missing = required.filter((name) => !Object.hasOwn(value, name) || value[name] === undefined);
  if (missing.length > 0) problems.push(`${path} is missing ${missing.map((m) => `"${m}"`).join(', ')}`);
  for (const [name, v] of Object.entries(value)) {
    const propSchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (isPlainObject(propSchema)) {
      check(propSchema, v, `${path}.${name}`, problems, depth + 1);
    } else if (schema.additionalProperties === false) {
      const known = Object.keys(properties);
      problems.push(`${path} has an unknown property "${name}"${known.length ? ` (expected ${known.map((k) => `"${k}"`).join(', ')})` : ''}`);
    } else if (isPlainObject(schema.additionalProperties)) {
      check(schema.additionalProperties, v, `${path}.${name}`, problems, depth + 1);
    }
  }
}

function typeList(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'null': return value === null;
    case 'array': return Array.isArray(value);
    case 'object': return isPlainObject(value);
    default: return true;
  }
}

function article(type: string): string {
  return type === 'null' ? 'null' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
