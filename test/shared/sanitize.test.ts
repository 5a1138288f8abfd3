import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_OPERATOR_TEXT_LENGTH, MAX_SANITIZED_LENGTH, redactCredentials, sanitize } from '../../lib/shared/sanitize.ts';

function run(input: unknown, expected: string): void {
  assert.is(sanitize(input), expected);
}

const cases: Array<[name: string, input: unknown, expected: string]> = [
  // credentials in URLs and bare user:pass@host
  ['credentials in https URL', 'connect https://user:pass@db.example.com:5432/x failed', 'connect [URL] failed'],
  ['credentials in postgres URL with empty user', 'dsn postgres://:pw@h/db bad', 'dsn [URL] bad'],
  ['bare user:pass@host', 'redis user:hunter2@cache.internal:6379 refused', 'redis [REDACTED]@cache.internal:6379 refused'],
  ['a URL with a mistyped :// keeps no userinfo', 'found the string "http//admin:hunter2pass@example.com/mcp"', 'found the string "http//[REDACTED]@example.com/mcp"'],
  ['a URL with one slash keeps no userinfo', 'bad url http:/admin:pw@h.test', 'bad url http:/[REDACTED]@h.test'],
  ['scp-style git remote is not a credential', 'clone git@github.com:org/repo.git', 'clone git@github.com:org/repo.git'],

  // bearer and key/value secrets
  ['Authorization header with Bearer', 'Authorization: Bearer abc.def', 'Authorization: [REDACTED]'],
  ['Authorization header with Basic', 'authorization=Basic dXNlcjpwYXNz', 'authorization=[REDACTED]'],
  ['bare Bearer token', 'got Bearer abcdef123, retrying', 'got Bearer [REDACTED], retrying'],
  ['bare Basic token', 'bad request, you sent Basic YWRtaW46VXJsUGFzc3cwcmRRUQ== / undefined', 'bad request, you sent Basic [REDACTED] / undefined'],
  ['Basic token after auth=', 'internal error: auth=Basic dXNlcjpwYXNz.', 'internal error: auth=Basic [REDACTED].'],
  ['Basic and a word stay', 'Basic Settings, basic authentication and BASIC usage', 'Basic Settings, basic authentication and BASIC usage'],
  ['Basic and a word that looks like base64 stay', 'basic TCP/IPv4 support, basic LinkedIn, Basic OpenAPIs, Basic 12345678, Basic v1/v2/v3/v4x', 'basic TCP/IPv4 support, basic LinkedIn, Basic OpenAPIs, Basic 12345678, Basic v1/v2/v3/v4x'],
  ['a Basic token with a JSON-escaped slash, in JSON-escaped text', 'body: {\\"received\\":\\"Basic YWRtaW46YWJ+Yz9kfmU\\/Zg==\\"}', 'body: {\\"received\\":\\"Basic [REDACTED]\\"}'],
  ['a user-only Basic token', `sent Basic ${Buffer.from('tok:').toString('base64')}`, 'sent Basic [REDACTED]'],
  ['a Basic token of a non-ASCII password', `sent Basic ${Buffer.from('bob:pässwörd').toString('base64')}`, 'sent Basic [REDACTED]'],
  ['password=value', 'login failed password=hunter2 user=bob', 'login failed password=[REDACTED] user=bob'],
  ['key: value with spaces around separator', 'secret : s3cr3t next', 'secret : [REDACTED] next'],
  ['longer key GITHUB_TOKEN=', 'env GITHUB_TOKEN=abc123 set', 'env GITHUB_TOKEN=[REDACTED] set'],
  ['header x-api-key:', 'x-api-key: 123abc', 'x-api-key: [REDACTED]'],
  ['apikey and api_key in query string', 'q?apikey=a&api_key=b&page=2', 'q?apikey=[REDACTED]&api_key=[REDACTED]&page=2'],
  ['passwd with single-quoted value', "passwd='a b c' end", "passwd='[REDACTED]' end"],
  ['client_secret with double-quoted value', 'client_secret = "xyz"', 'client_secret = "[REDACTED]"'],
  ['JSON-ish "password":"x"', '{"password":"x y","user":"bob"}', '{"password":"[REDACTED]","user":"bob"}'],
  ['JSON-ish access_token and refresh_token', '{"access_token": "a", "refresh_token": "b"}', '{"access_token": "[REDACTED]", "refresh_token": "[REDACTED]"}'],
  ['unterminated quoted value', 'password:"abc def', 'password:"[REDACTED]"'],
  ['keyword without separator stays', 'Error: password is required', 'Error: password is required'],
  ["the service's own wording after a secret's path stays", 'mcp.json at mcpServers.a.env.API_KEY: expected a string, found a number', 'mcp.json at mcpServers.a.env.API_KEY: expected a string, found a number'],
  ['a secret that starts with "expected" goes', 'API_KEY: expectedvalue9 and password=expected', 'API_KEY: [REDACTED] and password=[REDACTED]'],

  // token shapes
  ['OpenAI sk- key', 'key sk-abcdefghijklmnopqrstuvwx used', 'key [REDACTED] used'],
  ['Anthropic sk-ant- key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv-wx', '[REDACTED]'],
  ['OpenAI sk-proj- key', 'sk-proj-abcdefghijklmnopqrstuvwxyz', '[REDACTED]'],
  ['GitHub ghp_ token', 'push ghp_abcdefghijklmnopqrstuvwxyz0123456789 denied', 'push [REDACTED] denied'],
  ['GitHub gho_/ghu_/ghs_/ghr_ tokens', 'gho_abcdefghijklmnopqrst1 ghu_abcdefghijklmnopqrst2 ghs_abcdefghijklmnopqrst3 ghr_abcdefghijklmnopqrst4', '[REDACTED] [REDACTED] [REDACTED] [REDACTED]'],
  ['GitHub fine-grained PAT', 'github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz', '[REDACTED]'],
  ['AWS access key id', 'aws AKIAIOSFODNN7EXAMPLE rejected', 'aws [REDACTED] rejected'],
  ['JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_-abc ok', 'jwt [REDACTED] ok'],
  ['lone eyJ base64url segment', 'blob eyJhbGciOiJub25lIn0 end', 'blob [REDACTED] end'],
  ['Slack tokens', 'xoxb-1234567890-abcdefghij and xoxp-1234567890-zyxwvu', '[REDACTED] and [REDACTED]'],
  ['short sk- word stays', 'sk-short', 'sk-short'],

  // URLs
  ['https URL with trailing period', 'fetch https://example.com/a?b=c. then', 'fetch [URL]. then'],
  ['http URL in parentheses', '(see http://a.b/c)', '(see [URL])'],
  ['ws and wss URLs', 'ws://x:1/y wss://h/socket', '[URL] [URL]'],
  ['file URL', 'load file:///etc/passwd failed', 'load [URL] failed'],
  ['other scheme URL with IPv6 host', 'redis://[2001:db8::1]:6379/0 down', '[URL] down'],
  ['URL with token in query', 'GET https://api.x.io/v1?access_token=abc', 'GET [URL]'],

  // paths
  ['POSIX path in quotes', "ENOENT: no such file or directory, open '/home/u/x.js'", "ENOENT: no such file or directory, open '[PATH]'"],
  ['POSIX path keeps line and column', 'at /usr/lib/node.js:10:5', 'at [PATH]:10:5'],
  ['POSIX path after =', '--config=/etc/agent/mcp.json', '--config=[PATH]'],
  ['home path', 'read ~/x/y.txt', 'read [PATH]'],
  ['Windows drive path', 'at C:\\Users\\bob\\x.js:3:4', 'at [PATH]:3:4'],
  ['Windows UNC path', 'open \\\\server\\share\\dir\\f.txt', 'open [PATH]'],
  ['ratios, relative paths and lone slash stay', 'ratio a/b 1/2 and / alone and ./rel/x', 'ratio a/b 1/2 and / alone and ./rel/x'],

  // IPv4
  ['IPv4', 'host 10.1.2.3 down', 'host 10.1.2.0 down'],
  ['IPv4 with port', 'connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.0:5432'],
  ['IPv4-like with octet > 255 stays', '999.1.2.3', '999.1.2.3'],

  // IPv6
  ['IPv6 compressed', 'peer 2001:db8:1:2::5 reset', 'peer 2001:db8:1:: reset'],
  ['IPv6 full form', '2001:0db8:0001:0002:0003:0004:0005:0006', '2001:db8:1::'],
  ['IPv6 with zero groups in the first 48 bits', '2001:0:0:1::9', '2001::'],
  ['IPv6 loopback', 'listen ::1', 'listen ::'],
  ['IPv6 in brackets with port', '[fe80::1]:8080', '[fe80::]:8080'],
  ['IPv4-mapped IPv6', 'from ::ffff:10.1.2.3', 'from ::ffff:10.1.2.0'],

  // control sequences
  ['ANSI colours', '\x1b[31mred\x1b[0m text', 'red text'],
  ['cursor moves and clear screen', '\x1b[2J\x1b[1;1Hhello\x1b[3A', 'hello'],
  ['OSC window title (BEL and ST terminated)', '\x1b]0;pwned\x07ok \x1b]2;x\x1b\\done', 'ok done'],
  ['OSC 8 hyperlink keeps link text only', '\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ here', 'link here'],
  ['8-bit CSI', '\x9b31mred', 'red'],
  ['bare ESC, NUL, bell and DEL', 'a\x1bb\x00c\x07d\x7fe', 'abcde'],
  ['newlines and tabs become one space', 'line1\r\nline2\tcol\n\n  end  ', 'line1 line2 col end'],
  ['bidi override removed', 'file\u202etxt.exe', 'filetxt.exe'],

  // length
  ['exactly 200 characters stays', 'a'.repeat(200), 'a'.repeat(200)],
  ['201 characters is cut with ellipsis', 'a'.repeat(201), `${'a'.repeat(199)}…`],
  ['whitespace collapsed before measuring', `${'a '.repeat(100)}${' '.repeat(500)}`, `${'a '.repeat(99)}a`],
  ['surrogate pair is not split', '😀'.repeat(150), `${'😀'.repeat(99)}…`],

  // non-string input
  ['Error uses message', new Error('boom at /home/x/y.js'), 'boom at [PATH]'],
  ['number', 42, '42'],
  ['bigint', 10n, '10'],
  ['null', null, ''],
  ['undefined', undefined, ''],
  ['plain object', { a: 1 }, '[object Object]'],
  ['object without toString', Object.create(null), ''],

  // must stay unchanged
  ['version numbers', 'requires node 20.19.0, got v1.2.3', 'requires node 20.19.0, got v1.2.3'],
  ['times and timestamps', 'at 12:30:45 (2024-01-02T12:30:45.123Z)', 'at 12:30:45 (2024-01-02T12:30:45.123Z)'],
  ['Error: prefix and Rust/C++ paths', 'Error: foo in std::io::Error', 'Error: foo in std::io::Error'],
  ['connection refused', 'connection refused', 'connection refused'],
  ['spawn ENOENT', 'spawn ENOENT', 'spawn ENOENT'],
  ['exit code 1', 'exit code 1', 'exit code 1'],
  ['HTTP status line', 'HTTP/1.1 500 Internal Server Error', 'HTTP/1.1 500 Internal Server Error'],
  ['email address', 'contact bob@example.com', 'contact bob@example.com'],
];

for (const [name, input, expected] of cases) {
  test(`sanitize :: ${name}`, () => run(input, expected));
}

const MB = 1 << 20;
const hostile: Array<[name: string, input: string, expected: string]> = [
  ['1 MB of one character', 'a'.repeat(MB), `${'a'.repeat(199)}…`],
  ['1 MB of path segments', '/a'.repeat(MB / 2), '[PATH]…'],
  ['1 MB of colon-separated hex', 'a:'.repeat(MB / 2), `${'a:'.repeat(100).slice(0, 199)}…`],
  ['1 MB of dotted digits', '1.'.repeat(MB / 2), `${'1.'.repeat(100).slice(0, 199)}…`],
  ['1 MB of unterminated CSI', '\x1b['.repeat(MB / 2), `${'['.repeat(199)}…`],
  ['1 MB of key/value separators', 'password='.repeat(MB / 8), 'password=[REDACTED]…'],
  ['1 MB of URL schemes', 'https://'.repeat(MB / 8), '[URL]…'],
  ['1 MB of spaces hides the tail', `${' '.repeat(MB)}password=x`, '…'],
];

for (const [name, input, expected] of hostile) {
  // Speed belongs in benchmarks/; here only the bounded, exact output is asserted.
  test(`sanitize :: ${name} is bounded`, () => {
    const out = sanitize(input);
    assert.is(out, expected);
    assert.ok(out.length <= MAX_SANITIZED_LENGTH, `length ${out.length}`);
  });
}

test('sanitize :: MAX_SANITIZED_LENGTH is 200', () => {
  assert.is(MAX_SANITIZED_LENGTH, 200);
});

test('sanitize :: is idempotent on redacted output', () => {
  for (const [name, , expected] of cases) assert.is(sanitize(expected), expected, name);
});

// The operator's channels (service log, CLI): credentials go, what the operator acts on stays.
const operator: Array<[name: string, input: unknown, expected: string]> = [
  ['file path kept', "ENOENT: no such file or directory, open '/home/u/x.js'", "ENOENT: no such file or directory, open '/home/u/x.js'"],
  ['config path with line and column kept', '/etc/agent/mcp.json:3:7: expected a string', '/etc/agent/mcp.json:3:7: expected a string'],
  ['URL kept, userinfo redacted', 'connect https://user:pass@db.example.com:5432/x failed', 'connect https://[REDACTED]@db.example.com:5432/x failed'],
  ['a mistyped URL kept, userinfo redacted', 'found "http//admin:hunter2pass@example.com/mcp"', 'found "http//[REDACTED]@example.com/mcp"'],
  ['secret query value redacted, URL kept', 'GET https://api.x.io/v1?api_key=abc&page=2', 'GET https://api.x.io/v1?api_key=[REDACTED]&page=2'],
  ['?key=, &sig=, #access_token= and ?auth= values redacted, URL kept', 'login failed https://api.example.com/v1?key=s3cret&page=2&sig=abc#access_token=zzz then https://h/p?auth=xyz', 'login failed https://api.example.com/v1?key=[REDACTED]&page=2&sig=[REDACTED]#access_token=[REDACTED] then https://h/p?auth=[REDACTED]'],
  ['camelCase and provider names redacted', 'GET https://h/x?apiKey=k1&accessToken=t1&X-Amz-Signature=s1&X-Amz-Credential=c1', 'GET https://h/x?apiKey=[REDACTED]&accessToken=[REDACTED]&X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]'],
  ['a parameter holding a URL does not hide the secret one inside or after it', 'GET https://proxy/fetch?url=https://maps.example.com/api?key=AIzaSECRET and https://h/p?a=1;sig=SIGSECRET', 'GET https://proxy/fetch?url=https://maps.example.com/api?key=[REDACTED] and https://h/p?a=1;sig=[REDACTED]'],
  ['joined secret names redacted', 'GET https://h/p?authkey=a1&appkey=a2&privatekey=a3&accesskey=a4', 'GET https://h/p?authkey=[REDACTED]&appkey=[REDACTED]&privatekey=[REDACTED]&accesskey=[REDACTED]'],
  ['ordinary parameters kept, a secret word inside a longer name too', 'GET https://h/search?q=tokens&page=2&author=ann&keyword=k&monkey=m&design=d&assignee=a', 'GET https://h/search?q=tokens&page=2&author=ann&keyword=k&monkey=m&design=d&assignee=a'],
  ['address kept', 'connect ECONNREFUSED 10.1.2.3:5432', 'connect ECONNREFUSED 10.1.2.3:5432'],
  ['bearer token redacted', 'Authorization: Bearer abc.def', 'Authorization: [REDACTED]'],
  ['token shape redacted', 'push ghp_abcdefghijklmnopqrstuvwxyz0123456789 denied', 'push [REDACTED] denied'],
  ['key=value secret redacted', 'env GITHUB_TOKEN=abc123 set', 'env GITHUB_TOKEN=[REDACTED] set'],
  ['control sequences stripped', '\x1b[31mred\x1b[0m /tmp/x', 'red /tmp/x'],
  ['Error uses message', new Error('boom at /home/x/y.js'), 'boom at /home/x/y.js'],
  ['longer than 200 characters kept', 'a'.repeat(300), 'a'.repeat(300)],
];
for (const [name, input, expected] of operator) {
  test(`redactCredentials :: ${name}`, () => assert.is(redactCredentials(input), expected));
}

test('redactCredentials :: bounded at MAX_OPERATOR_TEXT_LENGTH', () => {
  const out = redactCredentials(`${'x'.repeat(MB)} password=y`);
  assert.is(out.length, MAX_OPERATOR_TEXT_LENGTH);
  assert.ok(out.endsWith('…'));
});

test.run();
