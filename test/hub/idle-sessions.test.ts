// Which sessions the reaper closes: found by an outside check, it closed a 2025 session whose
// call was still running (30 minutes of progress) and an SSE session whose stream was open.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isIdle } from '../../lib/hub/http.ts';

test('idle sessions :: closed only with nothing open and no request since the cutoff', () => {
  const cutoff = 1_000_000;
  const table: [string, { open: number; lastActivity: number }, boolean][] = [
    ['nothing open, last request before the cutoff', { open: 0, lastActivity: cutoff - 1 }, true],
    ['nothing open, a request at the cutoff', { open: 0, lastActivity: cutoff }, false],
    ['a call still streaming its answer', { open: 1, lastActivity: cutoff - 3_600_000 }, false],
    ['a GET stream and a call', { open: 2, lastActivity: 0 }, false],
  ];
  for (const [what, session, idle] of table) assert.is(isIdle(session, cutoff), idle, what);
});

test.run();
