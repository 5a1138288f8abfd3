import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskArg, maskUrl, maskUrls } from '../../lib/cli/mask-secrets.ts';

const urls: [string, string, string][] = [
  ['a plain URL', 'https://example.com/mcp', 'https://example.com/mcp'],
  ['userinfo with a password', 'https://user:pw@example.com/mcp', 'https://****@example.com/mcp'],
  ['userinfo without a password', 'https://token123@example.com', 'https://****@example.com'],
  ['userinfo made of references', 'https://${USER}:${PASS}@example.com/', 'https://****@example.com/'],
  ['an @ in the path is not userinfo', 'https://example.com/users/@me', 'https://example.com/users/@me'],
  ['api_key and a harmless parameter', 'https://h.test/mcp?api_key=abc&page=2', 'https://h.test/mcp?api_key=****&page=2'],
  ['every listed name, any case', 'http://h/?Password=1&passwd=2&client_secret=3&ACCESS_TOKEN=4&refresh_token=5&apikey=6&api-key=7&auth=8&key=9&sig=10&signature=11&x-amz-signature=12',
    'http://h/?Password=****&passwd=****&client_secret=****&ACCESS_TOKEN=****&refresh_token=****&apikey=****&api-key=****&auth=****&key=****&sig=****&signature=****&x-amz-signature=****'],
  ['a reference as a secret value is masked too', 'https://h/?token=${TOKEN}&region=${REGION}', 'https://h/?token=****&region=${REGION}'],
  ['percent-encoded names', 'https://h/?api%5Fkey=abc', 'https://h/?api%5Fkey=****'],
  ['fragment parameters', 'https://h/cb#access_token=abc&state=x', 'https://h/cb#access_token=****&state=x'],
  ['a parameter without a value', 'https://h/?token&x=1', 'https://h/?token&x=1'],
  ['not a URL', 'server.js', 'server.js'],
];
for (const [name, input, expected] of urls) test(`mask-secrets :: ${name}`, () => assert.is(maskUrl(input), expected));

test('mask-secrets :: maskArg masks a secret-looking flag\'s value, inline or as the next argument, and nothing else', () => {
  assert.is(maskArg('--token=abc'), '--token=****');
  assert.is(maskArg('API_KEY=abc'), 'API_KEY=****');
  assert.is(maskArg('abc', '--password'), '****');
  assert.is(maskArg('abc', '--pass'), '****', 'the names the service masks in what a backend prints (secret-values.ts)');
  assert.is(maskArg('--next-flag', '--password'), '--next-flag', 'a flag after a bare one is no value');
  assert.is(maskArg('abc', '-k'), 'abc', 'a one-letter flag names nothing');
  assert.is(maskArg('--port=3000'), '--port=3000');
  assert.is(maskArg('value', '--verbose'), 'value');
  assert.is(maskArg('--endpoint=https://u:p@h.test/x'), '--endpoint=https://****@h.test/x');
  assert.is(maskArg('https://h.test/x?token=t'), 'https://h.test/x?token=****');
});

// Found by an outside check: mcp-remote's `--header "Authorization: Bearer ..."` and a bare token
// argument printed in clear, while the service's own log masked both.
test('mask-secrets :: maskArg masks a secret header line and credentials of a known shape; other text stays', () => {
  const table: [string, string][] = [
    ['Authorization: Bearer hdrArgRRR222', 'Authorization: ****'],
    ['X-Api-Key:abc123secret', 'X-Api-Key:****'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', '****'],
    ['Accept: application/json', 'Accept: application/json'],
    ['mcp-remote', 'mcp-remote'],
    ['/srv/keys/server.js', '/srv/keys/server.js'],
    ['C:\\tools\\server.js', 'C:\\tools\\server.js'],
  ];
  for (const [arg, masked] of table) assert.is(maskArg(arg, '--header'), masked, arg);
});

test('mask-secrets :: URLs inside a longer text', () => {
  assert.is(maskUrls('--endpoint=https://u:p@h.test/x?sig=abc --verbose'), '--endpoint=https://****@h.test/x?sig=**** --verbose');
  assert.is(maskUrls('--token=${API_TOKEN}'), '--token=${API_TOKEN}');
});

test.run();
