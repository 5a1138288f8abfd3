// A backend worker's reports and its calls' errors with the server's configured secrets masked:
// in values at any depth, and in keys (found by an outside check: a secret used as a key passed).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskDeep, maskEventSecrets } from '../../lib/backend/secret-events.ts';

const KEY = 's3cr3t-VALUE-xyz';

test('secret events :: maskDeep masks strings at any depth, keys included, and copies the rest as it is', () => {
  const table: [unknown, unknown][] = [
    [`auth failed for ${KEY}`, 'auth failed for [REDACTED]'],
    [{ key: KEY, [KEY]: 'as a key', nested: [{ k: KEY }, 5, null, true] }, { key: '[REDACTED]', '[REDACTED]': 'as a key', nested: [{ k: '[REDACTED]' }, 5, null, true] }],
    [[`${KEY}-suffix`, { a: { b: { c: KEY } } }], ['[REDACTED]-suffix', { a: { b: { c: '[REDACTED]' } } }]],
    [42, 42],
    [null, null],
    [{ plain: 'nothing secret' }, { plain: 'nothing secret' }],
  ];
  for (const [input, expected] of table) assert.equal(maskDeep(input, [KEY]), expected, JSON.stringify(input));
  const original = { key: KEY };
  maskDeep(original, [KEY]);
  assert.equal(original, { key: KEY }, 'the input is not changed');
});

test('secret events :: a log event has its message and fields masked; an event without text passes as the same object', () => {
  const log = maskEventSecrets({ v: 1, type: 'log', level: 'warn', msg: `token ${KEY}`, fields: { [KEY]: KEY } }, [KEY]);
  assert.equal(log, { v: 1, type: 'log', level: 'warn', msg: 'token [REDACTED]', fields: { '[REDACTED]': '[REDACTED]' } });
  const connecting = { type: 'connecting' as const, at: 1 };
  assert.is(maskEventSecrets(connecting as never, [KEY]), connecting);
  const untouched = { v: 1 as const, type: 'log' as const, level: 'info' as const, msg: KEY, fields: {} };
  assert.is(maskEventSecrets(untouched, []), untouched, 'no secrets: nothing copied');
});

test.run();
