// The SDK's Ajv validator, loaded on first use: our bundled servers put this in place of the SDK's ajv-provider (scripts/bundle.mjs).
import { createRequire } from 'node:module';
import type { AjvJsonSchemaValidator as SdkAjvValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

type AjvInstance = ConstructorParameters<typeof SdkAjvValidator>[0];

/** The SDK's own provider (its CommonJS build, which loads ajv and ajv-formats), read synchronously on the first call. */
function loadSdkValidator(): typeof SdkAjvValidator {
  const require = createRequire(import.meta.url);
  return (require('@modelcontextprotocol/sdk/validation/ajv') as { AjvJsonSchemaValidator: typeof SdkAjvValidator }).AjvJsonSchemaValidator;
}

/**
 * Same name, constructor and results as the SDK's `AjvJsonSchemaValidator` (it is that class, created on the first
 * `getValidator`). The SDK's Server builds one at start to check elicitation answers; our servers never elicit, so
 * loading ajv (about 0.25 MB of code) and setting up its formats at every start bought nothing.
 */
export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  private real: SdkAjvValidator | undefined;

  constructor(private readonly ajv?: AjvInstance) {}

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.real ??= new (loadSdkValidator())(this.ajv);
    return this.real.getValidator<T>(schema);
  }
}
