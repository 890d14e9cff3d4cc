// Renders a JSON Schema as a compact TypeScript-style type, for tool signatures in prompts.

type Schema = Record<string, unknown>;

/** Nesting rendered in full; deeper parts become `object` / `unknown[]` to keep prompts short. */
const MAX_TYPE_DEPTH = 4;

/** A TypeScript-style rendering of a JSON Schema, e.g. `{a: number, b?: string}` or `number[]`. */
export function schemaToType(schema: unknown, depth = 0): string {
  if (!isSchema(schema)) return 'unknown';
  if ('const' in schema) return JSON.stringify(schema.const) ?? 'unknown';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.map((e) => JSON.stringify(e)).join(' | ');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return unique(options.map((o) => schemaToType(o, depth + 1))).join(' | ');
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return schema.allOf.map((o) => schemaToType(o, depth + 1)).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const rendered = unique(types.map((t) => singleType(schema, t, depth)));
  if (schema.nullable === true && !rendered.includes('null')) rendered.push('null');
  return rendered.join(' | ');
}

function singleType(schema: Schema, type: unknown, depth: number): string {
  switch (type) {
    case 'string': case 'number': case 'boolean': case 'null': return type;
    case 'integer': return 'number';
    case 'array': return arrayType(schema, depth);
    case 'object': return objectType(schema, depth);
    default:
      if (isSchema(schema.properties)) return objectType(schema, depth);
      if (schema.items !== undefined) return arrayType(schema, depth);
      return 'unknown';
  }
}

function arrayType(schema: Schema, depth: number): string {
  if (Array.isArray(schema.items)) return `[${schema.items.map((s) => schemaToType(s, depth + 1)).join(', ')}]`;
  if (depth >= MAX_TYPE_DEPTH) return 'unknown[]';
  const item = schemaToType(schema.items, depth + 1);
  return /[|&\s]/.test(item) ? `(${item})[]` : `${item}[]`;
}

function objectType(schema: Schema, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const names = Object.keys(properties);
  if (names.length === 0) {
    return isSchema(schema.additionalProperties) ? `Record<string, ${schemaToType(schema.additionalProperties, depth + 1)}>` : 'object';
  }
  if (depth >= MAX_TYPE_DEPTH) return 'object';
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = names.map((name) => `${propertyKey(name)}${required.has(name) ? '' : '?'}: ${schemaToType(properties[name], depth + 1)}`);
  return `{${fields.join(', ')}}`;
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
