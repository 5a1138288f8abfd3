import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changedKeys, specChange } from '../../lib/config/spec-diff.ts';
import type { BackendSpec, StdioSpec } from '../../lib/config/types.ts';

const base: StdioSpec = {
  name: 'a', type: 'stdio', tags: ['x'], connectionTimeout: 10000, requestTimeout: 60000, protocolVersion: 'auto',
  disabledTools: [], toolDescriptionOverrides: {}, command: 'node', args: ['s.js'], cwd: undefined, env: { A: '1' }, stderr: 'pipe',
  supervision: { restartOnExit: false, maxRestarts: 5, restartDelay: 1000 },
};

const cases: [string, Partial<StdioSpec>, 'none' | 'metadata' | 'restart'][] = [
  ['nothing', {}, 'none'],
  ['tags', { tags: ['y'] }, 'metadata'],
  ['disabledTools', { disabledTools: ['t'] }, 'metadata'],
  ['toolDescriptionOverrides', { toolDescriptionOverrides: { t: 'd' } }, 'metadata'],
  ['an env value', { env: { A: '2' } }, 'restart'],
  ['args', { args: ['other.js'] }, 'restart'],
  ['a timeout', { requestTimeout: 1 }, 'restart'],
  ['supervision', { supervision: { restartOnExit: true, maxRestarts: 5, restartDelay: 1000 } }, 'restart'],
  ['tags and args', { tags: ['y'], args: [] }, 'restart'],
  ['stderrLimits set', { stderrLimits: { linesPerWindow: 2 } }, 'metadata'],
  ['stderrLimits and tags', { stderrLimits: { lineBytes: 1024 }, tags: ['y'] }, 'metadata'],
  ['stderrLimits and env', { stderrLimits: { lineBytes: 1024 }, env: { A: '2' } }, 'restart'],
];
for (const [name, change, expected] of cases) {
  test(`spec-diff :: ${name} → ${expected}`, () => assert.is(specChange(base, { ...base, ...change }), expected));
}
test('spec-diff :: stderrLimits changed or removed → metadata', () => {
  const limited: StdioSpec = { ...base, stderrLimits: { linesPerWindow: 2 } };
  assert.is(specChange(limited, { ...base, stderrLimits: { linesPerWindow: 3 } }), 'metadata');
  assert.is(specChange(limited, base), 'metadata');
});
test('spec-diff :: a nice value restarts the backend only when the priority it runs at changes', () => {
  assert.is(specChange(base, { ...base, nice: 5 }), 'restart', 'without a floor, any other nice');
  // The service raises a nice below its --worker-nice to it (lib/main/backend-nice.ts).
  const atLeast5 = (spec: BackendSpec) => Math.max(5, spec.type === 'stdio' ? (spec.nice ?? 0) : 0);
  assert.is(specChange({ ...base, nice: 3 }, { ...base, nice: 4 }, atLeast5), 'metadata', 'both run at 5');
  assert.is(specChange(base, { ...base, nice: 5 }, atLeast5), 'metadata', 'none given and 5: both run at 5');
  assert.is(specChange({ ...base, nice: 3 }, { ...base, nice: 7 }, atLeast5), 'restart', '5 to 7');
  assert.is(specChange({ ...base, nice: 3 }, { ...base, nice: 4, args: [] }, atLeast5), 'restart', 'another key changed too');
});
test('spec-diff :: changedKeys names the keys that differ, added and removed ones too, sorted, never values', () => {
  assert.equal(changedKeys(base, base), []);
  assert.equal(changedKeys(base, { ...base, env: { A: 'secret' }, args: ['x'], tags: base.tags }), ['args', 'env']);
  assert.equal(changedKeys(base, { ...base, stderrLimits: { lineBytes: 1 } }), ['stderrLimits']);
  assert.equal(changedKeys({ ...base, nice: 5 }, base), ['nice']);
  assert.equal(changedKeys(base, { ...base, env: { A: 'tok' }, referencedSecrets: ['tok'] }), ['env'], 'a derived field is not a key of mcp.json');
  assert.equal(changedKeys(base, { ...base, supervision: { ...base.supervision, maxRestarts: 9, restartDelay: 5 } }), ['maxRestarts', 'restartDelay'], 'the keys inside supervision');
});
test.run();
