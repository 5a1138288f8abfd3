// Entry of build/workers/ajv-validator.cjs: the SDK's ajv provider, loaded by sdk-shims.ts on first use.
export { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
