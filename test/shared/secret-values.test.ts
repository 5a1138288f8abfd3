// A server's configured secrets: which values count, and masking them in any text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendSpec } from '../../lib/config/types.ts';
import { maskSecretValues, secretValuesOf } from '../../lib/shared/secret-values.ts';

const stdio = (env: Record<string, string>) => ({ type: 'stdio', env }) as unknown as BackendSpec;

test('secret values :: env values with secret-looking names, longest first; short values, PWD and ordinary names not', () => {
  const spec = stdio({
    API_KEY: 'supersecret123',
    GITHUB_TOKEN: 'ghp_shortish',
    DB_PASSWORD: 'hunter2hunter2-long',
    client_secret: 'abcdef',
    AUTH: 'abc',
    PWD: '/work/main',
    HOME: '/home/someone',
    MODE: 'production',
  });
  assert.equal(secretValuesOf(spec), ['hunter2hunter2-long', 'supersecret123', 'ghp_shortish', 'abcdef']);
});

test('secret values :: header values of a remote server, without the auth scheme word', () => {
  const spec = { type: 'http', url: 'https://x', headers: { Authorization: 'Bearer tok-123456', 'X-Api-Key': 'k-987654' } } as unknown as BackendSpec;
  assert.equal(secretValuesOf(spec), ['tok-123456', 'k-987654']);
});

test('secret values :: every occurrence masked, as written or JSON-escaped; a longer secret containing a shorter one masked whole', () => {
  const secrets = ['pa"ss\\word-long', 'abc123xyz-long', 'abc123'];
  assert.is(maskSecretValues('auth failed for key abc123xyz-long (abc123) abc123', secrets), 'auth failed for key [REDACTED] ([REDACTED]) [REDACTED]');
  assert.is(maskSecretValues('{"msg":"pa\\"ss\\\\word-long"} and pa"ss\\word-long', secrets), '{"msg":"[REDACTED]"} and [REDACTED]');
  assert.is(maskSecretValues('nothing here', secrets), 'nothing here');
});

test.run();
