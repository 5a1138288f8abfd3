// A remote URL's user:password@, which fetch refuses, sent as a Basic Authorization header.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { moveUrlCredentials } from '../../lib/backend/url-credentials.ts';
import { secretValuesOf } from '../../lib/shared/secret-values.ts';
import type { RemoteSpec } from '../../lib/config/types.ts';

test("url credentials :: user:password@ becomes a Basic Authorization header and leaves the URL; a configured one wins", () => {
  const moved = moveUrlCredentials('https://bob:p%40ss-w0rd@mcp.example.com/mcp?x=1', { 'X-Other': 'v' });
  assert.equal(moved, { url: 'https://mcp.example.com/mcp?x=1', headers: { 'X-Other': 'v', Authorization: `Basic ${Buffer.from('bob:p@ss-w0rd').toString('base64')}` }, secrets: ['p@ss-w0rd'] });
  const kept = moveUrlCredentials('https://bob:secret1@mcp.example.com/mcp', { authorization: 'Bearer t0ken-abc' });
  assert.equal([kept.url, kept.headers], ['https://mcp.example.com/mcp', { authorization: 'Bearer t0ken-abc' }]);
  const plain = moveUrlCredentials('https://mcp.example.com/mcp', {});
  assert.equal(plain, { url: 'https://mcp.example.com/mcp', headers: {}, secrets: [] }, 'a URL without credentials is left as written');
});

test("url credentials :: the URL's password is one of the server's secrets", () => {
  const spec = { name: 'r', type: 'http', url: 'https://bob:Zq7hunter2Remote@mcp.example.com/mcp', headers: {} } as unknown as RemoteSpec;
  assert.ok(secretValuesOf(spec).includes('Zq7hunter2Remote'));
});

test.run();
