import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialSupervisorState, type SupervisorState } from '../../../lib/main/supervision/machine.ts';
import { CRASH_LOOP_ADVICE, supervisionLine, supervisionView } from '../../../lib/main/supervision/report.ts';

const policy = { restartDelay: 1000, maxRestarts: 5 };
const at = (patch: Partial<SupervisorState>): SupervisorState => ({ ...initialSupervisorState(policy), ...patch });
const RETRY_AT = Date.UTC(2026, 10, 26, 12, 0, 1);

test('supervision report :: the state table view of each phase', () => {
  assert.equal(supervisionView(at({ phase: 'restarting', attempt: 2, nextRetryAt: RETRY_AT }), 5), { state: 'restarting', attempt: 2, limit: 5, nextRetryAt: RETRY_AT });
  assert.equal(supervisionView(at({ phase: 'connected', attempt: 0 }), null), { state: 'connected', attempt: 0, limit: null, nextRetryAt: null });
});

test('supervision report :: the log line of each phase', () => {
  const table: [SupervisorState, string | undefined, ReturnType<typeof supervisionLine>][] = [
    [at({ phase: 'restarting', attempt: 2, nextRetryAt: RETRY_AT }), undefined, { level: 'warn', fields: { backend: 'db', code: 'backend_unavailable', attempt: 2, limit: 5, nextRetryAt: '2026-11-26T12:00:01.000Z' }, msg: 'backend will restart' }],
    [at({ phase: 'crashLoop', attempt: 5 }), undefined, { level: 'error', fields: { backend: 'db', code: 'backend_unavailable', attempts: 5 }, msg: `backend is in crash loop: ${CRASH_LOOP_ADVICE}` }],
    [at({ phase: 'crashLoop', attempt: 5 }), 'fix its configuration', { level: 'error', fields: { backend: 'db', code: 'backend_unavailable', attempts: 5 }, msg: 'backend is in crash loop: fix its configuration' }],
    // A restart with no time set yet, and the quiet phases: nothing to log.
    [at({ phase: 'restarting', attempt: 1, nextRetryAt: null }), undefined, null],
    [at({ phase: 'starting' }), undefined, null],
    [at({ phase: 'connected' }), undefined, null],
    [at({ phase: 'stopped' }), undefined, null],
  ];
  for (const [state, advice, line] of table) assert.equal(supervisionLine('db', state, 5, advice), line, `${state.phase} ${advice ?? ''}`);
});

test('supervision report :: the crash-loop advice names the command that lifts it', () => {
  assert.match(CRASH_LOOP_ADVICE, /agent mcp restart/);
});

test.run();
