import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentError, Code, ERRORS, EXIT_NO_SERVICE, EXIT_RUNTIME, EXIT_USAGE, errorBody, exitCode, httpStatus, isErrorCode, jsonRpcErrorBody, rpcCode } from '../../lib/shared/errors.ts';
import { UsageError } from '../../lib/cli/serve-options.ts';
import { UndefinedVariableError } from '../../lib/config/env.ts';
import { ServiceRunningError } from '../../lib/main/serve.ts';
import { TagFilterError } from '../../lib/shared/tag-filter.ts';

test('errors :: each code is spelled as its own name and has a meaning', () => {
  for (const [code, entry] of Object.entries(ERRORS)) {
    assert.is((Code as Record<string, string>)[code], code);
    assert.ok(entry.meaning.length > 10, code);
    assert.match(code, /^[a-z]+(_[a-z]+)*$/);
  }
  assert.ok(Object.isFrozen(Code));
});

test('errors :: the HTTP statuses of the answers the main thread and the hub write', () => {
  assert.equal(
    [Code.forbidden_host, Code.forbidden_origin, Code.message_too_large, Code.rate_limited, Code.hub_unavailable, Code.too_many_sessions, Code.not_found, Code.internal].map(httpStatus),
    [403, 403, 413, 429, 503, 503, 404, 500],
  );
  assert.is(httpStatus(Code.unknown_server), 500, 'a code without a status answers 500');
});

test('errors :: JSON-RPC bodies carry the catalogue number, or an endpoint’s own', () => {
  assert.equal(jsonRpcErrorBody(Code.hub_unavailable, 'later'), { jsonrpc: '2.0', error: { code: -32603, message: 'later', data: { code: 'hub_unavailable' } }, id: null });
  assert.is(JSON.stringify(jsonRpcErrorBody(Code.message_too_large, 'big')), '{"jsonrpc":"2.0","error":{"code":-32600,"message":"big","data":{"code":"message_too_large"}},"id":null}');
  assert.is(jsonRpcErrorBody(Code.session_not_found, 'gone', -32000).error.code, -32000);
  assert.is(rpcCode(Code.unknown_server), -32603);
  assert.is(JSON.stringify(errorBody(Code.not_found, 'No such route')), '{"error":"not_found","message":"No such route"}');
});

test('errors :: exit codes, also for codes of another version', () => {
  assert.is(exitCode(Code.no_service), EXIT_NO_SERVICE);
  assert.is(exitCode(Code.usage), EXIT_USAGE);
  assert.is(exitCode(Code.unknown_server), EXIT_RUNTIME);
  assert.is(exitCode('from_the_future'), EXIT_RUNTIME);
  assert.not.ok(isErrorCode('toString'), 'an inherited property is not a code');
  assert.ok(isErrorCode('internal'));
});

test('errors :: AgentError keeps its code and cause', () => {
  const cause = new Error('root');
  const error = new AgentError(Code.unsafe_path, 'not ours', { cause });
  assert.is(error.code, 'unsafe_path');
  assert.is(error.cause, cause);
  assert.instance(error, Error);
});

test('errors :: the errors a user meets carry their catalogue code', () => {
  const table: [AgentError, string, string][] = [
    [new UsageError('Expected --port to be a whole number'), 'usage', 'UsageError'],
    [new UndefinedVariableError('TOKEN', 'mcpServers.a.env.TOKEN'), 'undefined_variable', 'UndefinedVariableError'],
    [new ServiceRunningError('another agent service is already running'), 'service_running', 'ServiceRunningError'],
    [new TagFilterError('expected a tag', 3), 'invalid_tag_filter', 'TagFilterError'],
  ];
  for (const [error, code, name] of table) {
    assert.instance(error, AgentError);
    assert.is(error.code, code);
    assert.is(error.name, name);
  }
  assert.is(exitCode(table[0]![0].code), EXIT_USAGE);
  assert.is(table[3]![0].message, 'expected a tag at position 3');
});

// Errors that never reach a user as such: the connect step's own timeout and a child's end
// during initialize both become a backend's lastError, worded by the runner.
const INTERNAL_ERRORS = new Set(['ConnectStepTimeout', 'ChildEndedError']);

test('errors :: every other error class of the code is an AgentError, so it has a code', () => {
  const root = join(import.meta.dirname, '../..');
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts')) {
        for (const match of readFileSync(join(root, path), 'utf8').matchAll(/class (\w+) extends Error\b/g)) {
          if (match[1] !== 'AgentError' && !INTERNAL_ERRORS.has(match[1]!)) found.push(`${path}: ${match[1]}`);
        }
      }
    }
  };
  for (const dir of ['lib', 'bin', 'workers']) walk(dir);
  assert.equal(found, [], `error classes without a catalogue code: ${found.join(', ')}`);
});

test.run();
