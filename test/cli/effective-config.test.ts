import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { effectiveEntry, effectiveText, MASK } from '../../lib/cli/effective-config.ts';
import { formatProblem } from '../../lib/config/errors.ts';
import { normalizeConfig } from '../../lib/config/normalize.ts';

const sources = { parent: { HOME: '/home/u', PATH: '/bin', API_TOKEN: 'from-parent' }, runtimeScope: {}, platform: 'linux' as const };
const config = {
  serverDefaults: { env: { SHARED: 'shared-secret' }, requestTimeout: 30000, headers: { Authorization: 'Bearer abc' }, restartOnExit: true },
  mcpServers: {
    local: { command: 'node', args: ['server.js'], env: { TOKEN: '${API_TOKEN}' } },
    remote: { url: 'https://user:pw@example.com/mcp' },
    broken: { command: 3 },
  },
};
const loaded = normalizeConfig(config, '/cfg/mcp.json', '/cfg', sources);
if (!loaded.ok) throw new Error('fixture config must load');
const slot = (name: string) => loaded.config.servers.find((s) => s.name === name)!;

test('effective-config :: env values, header values and URL credentials are masked', () => {
  const local = effectiveEntry(slot('local'), false, formatProblem);
  assert.equal((local.effective!.env as Record<string, string>).TOKEN, MASK);
  assert.equal((local.effective!.env as Record<string, string>).SHARED, MASK);
  const remote = effectiveEntry(slot('remote'), false, formatProblem);
  assert.equal(remote.effective!.headers, { Authorization: MASK });
  assert.is(remote.effective!.url, `https://${MASK}@example.com/mcp`);
  assert.not.match(effectiveText([local, remote]), /from-parent|shared-secret|Bearer|pw@/);
});

test('effective-config :: --show-secrets reveals the substituted values', () => {
  const local = effectiveEntry(slot('local'), true, formatProblem);
  assert.equal((local.effective!.env as Record<string, string>).TOKEN, 'from-parent');
  assert.is(effectiveEntry(slot('remote'), true, formatProblem).effective!.url, 'https://user:pw@example.com/mcp');
});

test('effective-config :: keys from serverDefaults are marked', () => {
  const local = effectiveEntry(slot('local'), false, formatProblem);
  assert.equal(local.fromDefaults.sort(), ['env', 'requestTimeout', 'restartOnExit']);
  const text = effectiveText([local]);
  assert.match(text, /\n  \*requestTimeout: 30000\n/);
  assert.match(text, /\n {3}connectionTimeout: 10000\n/);
  assert.match(text, /\n {4}\* restartOnExit: true\n/);
  assert.equal(effectiveEntry(slot('remote'), false, formatProblem).fromDefaults.sort(), ['headers', 'requestTimeout'], 'restart settings are stdio only');
});

test('effective-config :: an invalid entry shows its problem and no configuration', () => {
  const broken = effectiveEntry(slot('broken'), false, formatProblem);
  assert.is(broken.valid, false);
  assert.is(broken.effective, null);
  assert.match(effectiveText([broken]), /broken \(invalid: not started\)\n {2}! \/cfg\/mcp\.json at mcpServers\.broken\.command: expected a string, found the number 3/);
});

test.run();
