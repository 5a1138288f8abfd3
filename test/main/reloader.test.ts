// Configuration loads: a load that failed for want of resources (out of file descriptors, a config
// worker that did not start) is tried again until it loads; a bad file is not retried; a later
// good load cancels a pending retry. The load itself is stood in for: the real faults are caused
// in test/e2e/out-of-fds.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigProblem } from '../../lib/config/errors.ts';
import type { LoadOutcome } from '../../lib/config/load.ts';
import type { LoadedConfig } from '../../lib/config/types.ts';
import { ConfigReloader } from '../../lib/main/reloader.ts';
import { createLogger } from '../../lib/shared/logger.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CONFIG = { servers: [] } as unknown as LoadedConfig;
const good = (fingerprint: string): LoadOutcome => ({ ok: true, config: CONFIG, fingerprint });
const unreadable = (found: string): LoadOutcome => ({ ok: false, problems: [{ file: '/c/mcp.json', path: '', expected: 'a readable file', found } satisfies ConfigProblem] });

function reloader(outcomes: Array<LoadOutcome | Error>, applyFailures = 0) {
  const lines: Record<string, unknown>[] = [];
  let applied = 0;
  let failures = applyFailures;
  let loads = 0;
  const r = new ConfigReloader({
    location: { file: '/c/mcp.json', dir: '/c' } as never,
    load: async () => {
      const next = outcomes[Math.min(loads++, outcomes.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
    apply: async () => {
      if (failures-- > 0) throw new Error('EMFILE: too many open files, spawn');
      applied++;
    },
    loaded: () => true,
    log: createLogger('debug', 'json', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } }),
    retryMs: 40,
  });
  return { r, lines, applied: () => applied, loads: () => loads };
}

test('reloader :: a file unreadable for want of descriptors is read again until it loads', async () => {
  const t = reloader([good('a'), unreadable('EMFILE'), unreadable('EMFILE'), good('b')]);
  await t.r.reload('startup');
  assert.is((await t.r.reload('file changed')).ok, false);
  for (let i = 0; i < 50 && t.applied() < 2; i++) await sleep(20);
  assert.is(t.applied(), 2, 'the change loaded once descriptors were free');
  assert.is(t.loads(), 4);
  const waits = t.lines.filter((l) => /for want of resources/.test(String(l.msg))).map((l) => l.retryInMs);
  assert.equal(waits, [40, 80], 'the second retry waits twice as long');
  await sleep(150);
  assert.is(t.loads(), 4, 'no retry after it loaded');
  await t.r.close();
});

test('reloader :: a load that threw (its worker did not start) is tried again', async () => {
  const t = reloader([good('a'), new Error('ERR_WORKER_INIT_FAILED: could not start the config worker'), good('b')]);
  await t.r.reload('startup');
  await t.r.reload('file changed');
  for (let i = 0; i < 50 && t.applied() < 2; i++) await sleep(20);
  assert.is(t.applied(), 2);
  assert.is(t.lines.find((l) => l.msg === 'configuration load failed')?.code, 'internal');
  await t.r.close();
});

test('reloader :: a load that ran its stack out (a RangeError) is not retried: the same file would fail the same way', async () => {
  const t = reloader([good('a'), new RangeError('Maximum call stack size exceeded'), good('b')]);
  await t.r.reload('startup');
  assert.is((await t.r.reload('file changed')).ok, false);
  await sleep(150);
  assert.is(t.loads(), 2, 'no retry');
  assert.not.ok(t.lines.some((l) => /for want of resources/.test(String(l.msg))));
  assert.is(t.lines.find((l) => l.msg === 'configuration load failed')?.retried, false);
  await t.r.close();
});

test('reloader :: a bad file is not retried; the retry of an unchanged file applies nothing', async () => {
  const bad: LoadOutcome = { ok: false, problems: [{ file: '/c/mcp.json', path: '', line: 1, column: 1, expected: 'valid JSON (InvalidSymbol)', found: '"x"' }] };
  const t = reloader([good('a'), bad]);
  await t.r.reload('startup');
  await t.r.reload('file changed');
  await sleep(150);
  assert.is(t.loads(), 2, 'no retry of a file that is wrong');
  const rejected = t.lines.find((l) => String(l.msg).startsWith('configuration rejected'));
  assert.is(rejected?.code, 'invalid_config', "the line carries the catalogue's code");
  assert.is(rejected?.line, 1);
  const same = reloader([good('a'), unreadable('ENFILE'), good('a')]);
  await same.r.reload('startup');
  await same.r.reload('file changed');
  for (let i = 0; i < 50 && same.loads() < 3; i++) await sleep(20);
  await sleep(20);
  assert.is(same.applied(), 1, 'the same content as before: nothing to apply');
  await t.r.close();
  await same.r.close();
});

test('reloader :: a configuration whose apply failed is applied again by the retry, not taken as unchanged', async () => {
  const t = reloader([good('a'), good('b')], 0);
  await t.r.reload('startup');
  const failing = reloader([good('a')], 1);
  assert.is((await failing.r.reload('startup')).ok, false, 'the apply failed');
  for (let i = 0; i < 50 && failing.applied() < 1; i++) await sleep(20);
  assert.is(failing.applied(), 1, 'the retry applied it');
  await t.r.close();
  await failing.r.close();
});

test('reloader :: the answer to a reload names the entries that were not taken, with why', async () => {
  const config = {
    servers: [
      { name: 'ok', disabled: false, tags: [], warnings: [] },
      { name: 'bad', disabled: false, tags: [], warnings: [], problems: [{ file: '/c/mcp.json', path: 'mcpServers.bad.command', expected: 'a string', found: 'the number 3' }] },
    ],
  } as unknown as LoadedConfig;
  const t = reloader([{ ok: true, config, fingerprint: 'x' }]);
  const outcome = await t.r.reload('agent mcp reload');
  assert.equal(outcome, {
    ok: true,
    message: 'loaded 2 servers from /c/mcp.json; 1 entry was not taken (a server already running keeps its last good entry): bad: /c/mcp.json at mcpServers.bad.command: expected a string, found the number 3',
  });
  await t.r.close();
});

test('reloader :: closing cancels a pending retry', async () => {
  const t = reloader([good('a'), unreadable('EMFILE'), good('b')]);
  await t.r.reload('startup');
  await t.r.reload('file changed');
  await t.r.close();
  await sleep(150);
  assert.is(t.loads(), 2);
});

test.run();
