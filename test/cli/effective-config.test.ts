import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { effectiveEntry, effectiveText, MASK } from '../../lib/cli/effective-config.ts';
import { formatProblem } from '../../lib/config/errors.ts';
import { normalizeConfig } from '../../lib/config/normalize.ts';

const SECRETS = { API_TOKEN: 'tok-parent-123', WORK_DIR: '/srv/secret-dir-456', API_KEY: 'key-789', PASS: 'pw-000', BIN: '/opt/bin-secret/node' };
const sources = { parent: { HOME: '/home/u', PATH: '/bin', ...SECRETS }, runtimeScope: {}, platform: 'linux' as const };
const config = {
  serverDefaults: { env: { SHARED: 'shared-secret' }, requestTimeout: 30000, headers: { 'X-Api-Key': '${API_KEY}' }, restartOnExit: true },
  mcpServers: {
    local: {
      command: '$BIN',
      args: ['server.js', '--token=${API_TOKEN}', '--endpoint=https://u:literal-pw@h.test/x?sig=literal-sig', 'cost=$$5', '--password', 'literal-flagpw', '--api-key=literal-apikey', '--verbose', 'x'],
      cwd: '${WORK_DIR}',
      env: { TOKEN: '${API_TOKEN}' },
    },
    remote: { url: 'https://user:${PASS}@example.com/mcp?api_key=literal-key&region=eu', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
    inheriting: { url: 'https://example.com/${API_KEY}/mcp' },
    broken: { command: 3 },
  },
};
const loaded = normalizeConfig(config, '/cfg/mcp.json', '/cfg', sources);
if (!loaded.ok) throw new Error('fixture config must load');
const slot = (name: string) => loaded.config.servers.find((s) => s.name === name)!;
const hidden = (name: string) => effectiveEntry(slot(name), false, formatProblem).effective!;
const revealed = (name: string) => effectiveEntry(slot(name), true, formatProblem).effective!;
const LITERAL_SECRETS = ['shared-secret', 'literal-pw', 'literal-sig', 'literal-key', 'Bearer', 'literal-flagpw', 'literal-apikey'];

// [field, server, hidden (no --show-secrets), revealed (--show-secrets)]
const cases: [string, string, unknown, unknown][] = [
  ['command from a reference', 'local', '$BIN', '/opt/bin-secret/node'],
  [
    'args (a reference as written, secret-looking flags\' literal values masked)',
    'local',
    ['server.js', '--token=${API_TOKEN}', '--endpoint=https://****@h.test/x?sig=****', 'cost=$5', '--password', MASK, '--api-key=****', '--verbose', 'x'],
    ['server.js', '--token=tok-parent-123', '--endpoint=https://u:literal-pw@h.test/x?sig=literal-sig', 'cost=$5', '--password', 'literal-flagpw', '--api-key=literal-apikey', '--verbose', 'x'],
  ],
  ['cwd', 'local', '${WORK_DIR}', '/srv/secret-dir-456'],
  ['url (userinfo from a reference, literal api_key)', 'remote', 'https://****@example.com/mcp?api_key=****&region=eu', 'https://user:pw-000@example.com/mcp?api_key=literal-key&region=eu'],
  ['url with a reference in its path', 'inheriting', 'https://example.com/${API_KEY}/mcp', 'https://example.com/key-789/mcp'],
  ['headers', 'remote', { Authorization: MASK }, { Authorization: 'Bearer tok-parent-123' }],
  ['headers inherited from serverDefaults', 'inheriting', { 'X-Api-Key': MASK }, { 'X-Api-Key': 'key-789' }],
  ['env (own and inherited from serverDefaults)', 'local', { HOME: MASK, PATH: MASK, SHARED: MASK, TOKEN: MASK }, { HOME: '/home/u', PATH: '/bin', SHARED: 'shared-secret', TOKEN: 'tok-parent-123' }],
];
for (const [field, server, masked, real] of cases) {
  const key = field.split(' ')[0]!;
  test(`effective-config :: ${field} of ${server} without --show-secrets`, () => assert.equal(hidden(server)[key], masked));
  test(`effective-config :: ${field} of ${server} with --show-secrets`, () => assert.equal(revealed(server)[key], real));
}

test('effective-config :: no secret value reaches the text or the JSON without --show-secrets', () => {
  const entries = ['local', 'remote', 'inheriting'].map((name) => effectiveEntry(slot(name), false, formatProblem));
  for (const out of [effectiveText(entries), JSON.stringify(entries)]) {
    for (const secret of [...Object.values(SECRETS), ...LITERAL_SECRETS]) assert.not.ok(out.includes(secret), `${secret} in ${out}`);
  }
  const text = effectiveText(entries);
  assert.match(text, /\n {3}args: \["server\.js","--token=\$\{API_TOKEN\}",/);
  assert.match(text, /\n {3}cwd: \$\{WORK_DIR\}\n/);
  assert.match(text, /\n  \*headers:\n {4}  X-Api-Key: \*\*\*\*\n/);
});

test('effective-config :: a slot without its raw strings shows nothing of them', () => {
  const { raw: _raw, ...bare } = slot('local');
  const effective = effectiveEntry(bare, false, formatProblem).effective!;
  assert.is(effective.cwd, MASK);
  assert.equal(effective.args, Array(9).fill(MASK));
});

test('effective-config :: keys from serverDefaults are marked', () => {
  const local = effectiveEntry(slot('local'), false, formatProblem);
  assert.equal(local.fromDefaults.sort(), ['env', 'requestTimeout', 'restartOnExit']);
  const text = effectiveText([local]);
  assert.match(text, /\n  \*requestTimeout: 30000\n/);
  assert.match(text, /\n {3}connectionTimeout: 10000\n/);
  assert.match(text, /\n {4}\* restartOnExit: true\n/);
  assert.equal(effectiveEntry(slot('remote'), false, formatProblem).fromDefaults.sort(), ['requestTimeout'], 'own headers replace the defaults; restart settings are stdio only');
  assert.equal(effectiveEntry(slot('inheriting'), false, formatProblem).fromDefaults.sort(), ['headers', 'requestTimeout']);
});

test('effective-config :: an invalid entry shows its problem and no configuration', () => {
  const broken = effectiveEntry(slot('broken'), false, formatProblem);
  assert.is(broken.valid, false);
  assert.is(broken.effective, null);
  assert.match(effectiveText([broken]), /broken \(invalid: not started; one already running keeps its last good entry\)\n {2}! \/cfg\/mcp\.json at mcpServers\.broken\.command: expected a string, found the number 3/);
});

test('effective-config :: stderrLimits: the keys from serverDefaults are marked, the server\'s own are not', () => {
  const partly = normalizeConfig(
    { serverDefaults: { stderrLimits: { linesPerWindow: 7 } }, mcpServers: { own: { command: 'node', stderrLimits: { lineBytes: 1024 } }, none: { command: 'node' } } },
    '/cfg/mcp.json',
    '/cfg',
    sources,
  );
  if (!partly.ok) throw new Error('fixture config must load');
  const [own, none] = ['own', 'none'].map((name) => effectiveEntry(partly.config.servers.find((s) => s.name === name)!, false, formatProblem));
  const text = effectiveText([own!, none!]);
  assert.match(text, /\nown\n(?:.*\n)*? {3}stderrLimits:\n {4}\* linesPerWindow: 7\n {6}lineBytes: 1024\n/);
  assert.match(text, /\nnone\n(?:.*\n)*? {2}\*stderrLimits:\n {4}\* linesPerWindow: 7\n/);
});

test.run();
