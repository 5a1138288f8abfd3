// A remote URL's user:password@, which fetch refuses, sent as a Basic Authorization header.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { moveUrlCredentials } from '../../lib/backend/url-credentials.ts';
import { maskSecretValues, secretValuesOf } from '../../lib/shared/secret-values.ts';
import type { RemoteSpec } from '../../lib/config/types.ts';

const basic = (userinfo: string) => `Basic ${Buffer.from(userinfo).toString('base64')}`;
const remote = (url: string) => ({ name: 'r', type: 'http', url, headers: {} }) as unknown as RemoteSpec;

test('url credentials :: user:password@ becomes a Basic Authorization header and leaves the URL; a configured one wins', () => {
  assert.equal(moveUrlCredentials('https://bob:p%40ss-w0rd@mcp.example.com/mcp?x=1', { 'X-Other': 'v' }), {
    url: 'https://mcp.example.com/mcp?x=1',
    headers: { 'X-Other': 'v', Authorization: basic('bob:p@ss-w0rd') },
  });
  const kept = moveUrlCredentials('https://bob:secret1@mcp.example.com/mcp', { authorization: 'Bearer t0ken-abc' });
  assert.equal(kept, { url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer t0ken-abc' } });
  assert.equal(moveUrlCredentials('https://mcp.example.com/mcp', {}), { url: 'https://mcp.example.com/mcp', headers: {} }, 'a URL without credentials is left as written');
  assert.equal(moveUrlCredentials('http://TOKEN123456@[::1]:8080/mcp', {}), { url: 'http://[::1]:8080/mcp', headers: { Authorization: basic('TOKEN123456:') } }, 'a user alone, an IPv6 host');
});

test("url credentials :: a '%' that is no valid encoding is taken as written, not thrown; the characters the URL parser encoded around it are decoded", () => {
  assert.equal(moveUrlCredentials('https://bob:100%pass-word@h.example/mcp', {}), { url: 'https://h.example/mcp', headers: { Authorization: basic('bob:100%pass-word') } });
  assert.equal(moveUrlCredentials('https://bob:p^x|y100%zz@h.example/mcp', {}).headers, { Authorization: basic('bob:p^x|y100%zz') });
});

test("url credentials :: the URL's password (or a user given alone) is one of the server's secrets, as written and decoded, and so is the Basic token it is sent as", () => {
  const secrets = secretValuesOf(remote('https://bob:Zq7hunter%402Remote@mcp.example.com/mcp'));
  assert.ok(secrets.includes('Zq7hunter@2Remote') && secrets.includes('Zq7hunter%402Remote'), secrets.join());
  assert.ok(secretValuesOf(remote('https://bob:100%pass-word@h.example/mcp')).includes('100%pass-word'));
  assert.ok(secretValuesOf(remote('https://ghp_TOKENabcdef123@h.example/mcp')).includes('ghp_TOKENabcdef123'));
  // The Basic token it is sent as: a backend that echoes the header back is masked too.
  const sent = moveUrlCredentials('https://admin:UrlPassw0rdQQ@h.example/mcp', {}).headers.Authorization!.slice('Basic '.length);
  assert.ok(secretValuesOf(remote('https://admin:UrlPassw0rdQQ@h.example/mcp')).includes(sent), sent);
  assert.is(maskSecretValues(`you sent Basic ${sent} / x`, secretValuesOf(remote('https://admin:UrlPassw0rdQQ@h.example/mcp'))), 'you sent Basic [REDACTED] / x');
  // Echoed without its padding, or JSON-escaped with its `/` as `\/`.
  const slashed = secretValuesOf(remote('http://admin:ab~c%3Fd~e%3Ff@h.example/mcp'));
  assert.is(maskSecretValues('token YWRtaW46YWJ+Yz9kfmU/Zg invalid', slashed), 'token [REDACTED] invalid');
  assert.is(maskSecretValues('{"received":"Basic YWRtaW46YWJ+Yz9kfmU\\/Zg=="}', slashed), '{"received":"Basic [REDACTED]"}');
});

test.run();
