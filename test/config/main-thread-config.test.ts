// The configuration as the main thread gets it from the config worker: per-server buffers, read
// back a few at a time; only what the registry uses.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LoadOutcome } from '../../lib/config/load.ts';
import { deserializeOutcome, forMainThread, serializeOutcome } from '../../lib/config/main-thread-config.ts';
import type { ServerSlot } from '../../lib/config/types.ts';

const spec = (name: string, args: string[]) => ({ type: 'stdio', name, command: 'node', args, env: { A: '1' }, tags: ['t'] }) as unknown as ServerSlot['spec'];
const slots: ServerSlot[] = [
  { name: 'on', disabled: false, tags: ['t'], spec: spec('on', ['server.mjs']), raw: { command: 'node' } as never, inherited: ['env'], warnings: ['w'] },
  { name: 'off', disabled: true, tags: [], spec: spec('off', Array.from({ length: 50_000 }, (_, i) => `arg-${i}`)), raw: {} as never, inherited: [], warnings: [] },
  { name: 'bad', disabled: false, tags: [], problems: [{ file: 'mcp.json', path: 'mcpServers.bad.command', expected: 'a string', found: '1' }], warnings: [] },
  ...Array.from({ length: 40 }, (_, i): ServerSlot => ({ name: `s${i}`, disabled: false, tags: [], spec: spec(`s${i}`, Array.from({ length: 600 }, (_, j) => `argument-${j}`)), warnings: [] })),
];
const outcome: LoadOutcome = { ok: true, fingerprint: 'abc', config: { file: '/x/mcp.json', dir: '/x', servers: slots, warnings: ['doc'] } };

test('main-thread config :: every server comes back as the registry uses it, in order', async () => {
  const back = await deserializeOutcome(serializeOutcome(outcome));
  assert.ok(back.ok);
  if (!back.ok) return;
  assert.is(back.fingerprint, 'abc');
  assert.equal(back.config.warnings, ['doc']);
  assert.equal(back.config.servers, slots.map(forMainThread));
  assert.equal(back.config.servers[0], { name: 'on', disabled: false, tags: ['t'], warnings: ['w'], spec: slots[0]!.spec }, 'no raw strings, no serverDefaults marks');
  assert.equal(back.config.servers[1], { name: 'off', disabled: true, tags: [], warnings: [] }, 'a disabled server without its spec');
  assert.equal(back.config.servers[2]!.problems, slots[2]!.problems);
});

test('main-thread config :: the servers are read a few at a time, yielding between turns', async () => {
  let turns = 0;
  const serialized = serializeOutcome(outcome);
  const back = await deserializeOutcome(serialized, async () => void turns++);
  const bytes = serialized.ok ? serialized.servers.reduce((sum, b) => sum + b.byteLength, 0) : 0;
  assert.ok(back.ok && back.config.servers.length === slots.length);
  assert.ok(turns >= Math.floor(bytes / (64 * 1024)) - 1 && turns >= 2, `${turns} turns for ${bytes} bytes`);
});

test('main-thread config :: a rejected file passes as it is', async () => {
  const rejected: LoadOutcome = { ok: false, problems: [{ file: 'mcp.json', path: '', expected: 'JSON', found: 'garbage' }] };
  assert.equal(await deserializeOutcome(serializeOutcome(rejected)), rejected);
});

test.run();
