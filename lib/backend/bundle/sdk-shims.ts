// Stands in for `@modelcontextprotocol/client/_shims` in the backend bundle only
// (scripts/bundle-workers.mjs). The SDK client stays as it is; what changes is when its
// JSON-schema validator loads: ajv and ajv-formats (a bundle of their own, ajv-validator.cjs
// beside the backend bundle) are required the first time an output schema is actually used to
// validate, not when the worker starts. The service forwards tool results unvalidated
// (runner.ts), so most workers never load them.
import type { JsonSchemaType, JsonSchemaValidator, JsonSchemaValidatorResult, jsonSchemaValidator } from '@modelcontextprotocol/client';

/** As the SDK's Node shim: in Node a fetch TypeError is never a CORS error. */
export const CORS_IS_POSSIBLE = false;

let provider: jsonSchemaValidator | null = null;

function ajvProvider(): jsonSchemaValidator {
  if (!provider) {
    // Resolved at run time beside the bundle (external in the build).
    const { AjvJsonSchemaValidator } = require('./ajv-validator.cjs') as { AjvJsonSchemaValidator: new () => jsonSchemaValidator };
    provider = new AjvJsonSchemaValidator();
  }
  return provider;
}

/** The SDK's default validator, compiled on first use instead of when a tool list arrives. */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: JsonSchemaValidator<T> | null = null;
    return (input: unknown): JsonSchemaValidatorResult<T> => {
      try {
        validate ??= ajvProvider().getValidator<T>(schema);
      } catch (error) {
        // The SDK reports a schema that does not compile as a failed validation too.
        return { valid: false, data: undefined, errorMessage: `output schema could not be compiled: ${(error as Error).message}` };
      }
      return validate(input);
    };
  }
}
