// A server's configured secrets: which names hold one, which values count, and masking them in
// any text (as written, JSON-escaped, URL-encoded, and the start of one at the end of a cut text).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendSpec } from '../../lib/config/types.ts';
import { isSecretName, maskSecretValues, secretValuesOf } from '../../lib/shared/secret-values.ts';

const stdio = (env: Record<string, string>) => ({ type: 'stdio', env }) as unknown as BackendSpec;

const names: [string, boolean][] = [
  ['API_KEY', true],
  ['OPENAI_API_KEY', true],
  ['GITHUB_TOKEN', true],
  ['PGPASSWORD', true],
  ['DB_PASSWORD', true],
  ['AWS_SECRET_ACCESS_KEY', true],
  ['client_secret', true],
  ['apiKey', true],
  ['X-Api-Key', true],
  ['Authorization', true],
  ['Cookie', true],
  ['AUTH', true],
  ['GIT_AUTHOR_NAME', false],
  ['GIT_AUTHOR_EMAIL', false],
  ['KEY_DIR', false],
  ['TOKEN_FILE', false],
  ['TOKENIZER', false],
  ['SSH_AUTH_SOCK', false],
  ['OAUTH_PROVIDER', false],
  ['PWD', false],
  ['HOME', false],
  ['Accept', false],
  ['MCP-Protocol-Version', false],
  ['AUTH_HEADER', true],
  ['MINIO_SECRETKEY', true],
  ['ACCESSKEY', true],
  ['BASICAUTH', true],
  ['X-JWT-Assertion', true],
  ['AUTH_ISSUER', false],
  ['TOKEN_ENDPOINT', false],
  ['COOKIE_DOMAIN', false],
  ['AUTH_TIMEOUT_MS', false],
  ['KEY_ALGORITHM', false],
  ['AUTH_STRATEGY', false],
];
for (const [name, secret] of names) test(`secret values :: ${name} ${secret ? 'holds' : 'does not hold'} a secret`, () => assert.is(isSecretName(name), secret));

test('secret values :: env values with secret names, longest first; short ones and other names not', () => {
  const spec = stdio({ API_KEY: 'supersecret123', GITHUB_TOKEN: 'ghp_shortish', DB_PASSWORD: 'hunter2hunter2-long', client_secret: 'abcdef', AUTH: 'abc', PWD: '/work/main', KEY_DIR: '/home/user', MODE: 'production' });
  assert.equal(secretValuesOf(spec), ['hunter2hunter2-long', 'supersecret123', 'ghp_shortish', 'abcdef']);
});

test('secret values :: a path is where a secret is, not the secret; a multi-line secret counts line by line too', () => {
  const pem = ['-----BEGIN PRIVATE KEY-----', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'VJTUt9Us8cKjMZlinesOfBase64ab', '-----END PRIVATE KEY-----'].join('\n');
  const secrets = secretValuesOf(stdio({ GOOGLE_APPLICATION_CREDENTIALS: '/home/ann/.config/gcloud/sa.json', WIN_TOKEN: 'C:\\keys\\t.txt', APP_PRIVATE_KEY: pem }));
  assert.equal(secrets, [pem, 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'VJTUt9Us8cKjMZlinesOfBase64ab', '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----']);
  assert.is(maskSecretValues('bad key: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', secrets), 'bad key: [REDACTED]');
});

test('secret values :: the values of secret-named flags among the args count, inline or as the next argument; other flags not', () => {
  const spec = { type: 'stdio', env: {}, args: ['server.js', '--token', 'abcd1234efgh5678zz', '--password=hunter2hunter2', '--port', '8080', '--api-key', '--verbose', '-k', 'notasecret'] } as unknown as BackendSpec;
  assert.equal(secretValuesOf(spec), ['abcd1234efgh5678zz', 'hunter2hunter2']);
  assert.is(maskSecretValues('usage error in: --token abcd1234efgh5678zz --password hunter2hunter2', secretValuesOf(spec)), 'usage error in: --token [REDACTED] --password [REDACTED]');
});

test('secret values :: a header line among the args with a secret-named header counts, without its scheme word; other headers not', () => {
  const spec = { type: 'stdio', env: {}, args: ['mcp-remote', 'https://h/mcp', '--header', 'Authorization: Bearer hdrArgRRR222', '-H', 'Accept: text/plain-ish', 'X-Api-Key:key-0123456789'] } as unknown as BackendSpec;
  assert.equal(secretValuesOf(spec), ['key-0123456789', 'hdrArgRRR222']);
  assert.is(maskSecretValues('server said: bad token hdrArgRRR222', secretValuesOf(spec)), 'server said: bad token [REDACTED]');
});

test('secret values :: values substituted from secret-named variables count, paths among them not', () => {
  const spec = { type: 'stdio', env: {}, referencedSecrets: ['dotenvsecretvalue42', '/run/secrets/token', 'abc'] } as unknown as BackendSpec;
  assert.equal(secretValuesOf(spec), ['dotenvsecretvalue42']);
  assert.is(maskSecretValues('command not found: /nonexistent/bin/server-dotenvsecretvalue42', secretValuesOf(spec)), 'command not found: /nonexistent/bin/server-[REDACTED]');
});

test('secret values :: a remote server\'s secret headers, without the auth scheme word; other headers not', () => {
  const spec = { type: 'http', url: 'https://x', headers: { Authorization: 'Bearer tok-123456', 'X-Api-Key': 'k-987654', Accept: 'application/json' } } as unknown as BackendSpec;
  assert.equal(secretValuesOf(spec), ['tok-123456', 'k-987654']);
});

test('secret values :: every occurrence masked, as written, JSON-escaped or URL-encoded; a longer secret containing a shorter one masked whole', () => {
  const secrets = ['pa"ss\\word-long', 'abc/def+ghi==', 'abc123xyz-long', 'abc123'];
  assert.is(maskSecretValues('auth failed for key abc123xyz-long (abc123) abc123', secrets), 'auth failed for key [REDACTED] ([REDACTED]) [REDACTED]');
  assert.is(maskSecretValues('{"msg":"pa\\"ss\\\\word-long"} and pa"ss\\word-long', secrets), '{"msg":"[REDACTED]"} and [REDACTED]');
  assert.is(maskSecretValues('GET /x?k=abc%2Fdef%2Bghi%3D%3D', secrets), 'GET /x?k=[REDACTED]');
  assert.is(maskSecretValues('{"k":"abc\\/def+ghi=="}', secrets), '{"k":"[REDACTED]"}', 'JSON with `/` escaped (PHP)');
  assert.is(maskSecretValues('nothing here', secrets), 'nothing here');
});

test('secret values :: a cut text that ends in the start of a secret loses that start (4 characters or more)', () => {
  const secrets = ['Zq8vTt2mP4nR7sK1wX9yL3'];
  assert.is(maskSecretValues('login failed: Zq8vTt2mP4', secrets, true), 'login failed: [REDACTED]');
  assert.is(maskSecretValues('login failed: Zq8', secrets, true), 'login failed: Zq8', 'three characters say nothing');
  assert.is(maskSecretValues('login failed: Zq8vTt2mP4', secrets), 'login failed: Zq8vTt2mP4', 'a text that was not cut');
  assert.is(maskSecretValues('GET /x?k=abc%2Fdef%2B', ['abc/def+ghi=jklmnop'], true), 'GET /x?k=[REDACTED]', 'cut inside the URL-encoded form');
});

test.run();
