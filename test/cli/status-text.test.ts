import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { liveText, operatorView } from '../../lib/cli/status-text.ts';
import type { BackendStatusView, StatusView } from '../../lib/main/status-view.ts';

const server = (name: string, lastError: string | null, entryError: string | null = null): BackendStatusView => ({
  name,
  status: lastError ? 'error' : 'connected',
  healthy: !lastError,
  tags: [],
  supervision: null,
  pid: lastError ? null : 4250,
  lastExit: null,
  lastError,
  entryError,
  protocolVersion: null,
  tools: 0,
});
const view = (reload: StatusView['reload']): StatusView => ({
  live: true,
  pid: 4242,
  version: '0.1.0',
  configFile: '/home/me/.config/agent/mcp.json',
  address: 'http://127.0.0.1:3050',
  reload,
  servers: [server('files', null), server('search', 'failed to start: command not found: /opt/search password=hunter2')],
});
const REJECTED = {
  loadedAt: '2026-11-22T01:00:00.000Z',
  rejected: { at: '2026-11-22T01:20:31.000Z', reason: '/home/me/.config/agent/mcp.json:3:31: expected valid JSON (PropertyNameExpected), found "token=abc"' },
};

test('status-text :: a rejected reload is one line under the header, credentials redacted, paths kept', () => {
  const text = liveText(view(REJECTED));
  const lines = text.split('\n');
  assert.is(lines[0], 'Live status of the service (pid 4242, version 0.1.0, /home/me/.config/agent/mcp.json)');
  assert.is(
    lines[1],
    'Configuration: the last reload was rejected at 2026-11-22T01:20:31.000Z: /home/me/.config/agent/mcp.json:3:31: expected valid JSON (PropertyNameExpected), found "token=[REDACTED]"; serving the configuration loaded at 2026-11-22T01:00:00.000Z',
  );
  assert.match(lines[2]!, /^NAME +STATUS/);
  assert.ok(text.includes('\nLast errors:\n  search: failed to start: command not found: /opt/search password=[REDACTED]\n'), text);
});

test('status-text :: a rejection before any load says nothing is served', () => {
  assert.match(liveText(view({ loadedAt: null, rejected: REJECTED.rejected })), /; no configuration has loaded yet\n/);
});

test('status-text :: no line when no reload was rejected', () => {
  const text = liveText(view({ loadedAt: REJECTED.loadedAt, rejected: null }));
  assert.not.match(text, /Configuration:/);
  assert.match(text.split('\n')[1]!, /^NAME/);
});

test('status-text :: --json carries the same redactions', () => {
  const redacted = operatorView(view(REJECTED));
  assert.is(redacted.reload.rejected!.reason, '/home/me/.config/agent/mcp.json:3:31: expected valid JSON (PropertyNameExpected), found "token=[REDACTED]"');
  assert.is(redacted.servers[1]!.lastError, 'failed to start: command not found: /opt/search password=[REDACTED]');
  assert.is(redacted.servers[0]!.lastError, null);
  assert.equal(redacted.reload.loadedAt, REJECTED.loadedAt);
});


test('status-text :: an entry not taken in a reload is said, with why, next to the backend running on its last good entry', () => {
  const reason = 'invalid configuration: mcpServers.files.timeout: expected a number, found the string "x"; mcpServers.files.env.TOKEN=abc';
  const text = liveText({ ...view({ loadedAt: REJECTED.loadedAt, rejected: null }), servers: [server('files', null, reason), server('search', null)] });
  assert.ok(
    text.includes('\nEntries not taken (each runs on with its last good entry until the file is fixed):\n  files: invalid configuration: mcpServers.files.timeout: expected a number, found the string "x"; mcpServers.files.env.TOKEN=[REDACTED]\n'),
    text,
  );
  assert.match(text, /\nfiles +connected /, 'the backend itself is still connected');
  assert.is(operatorView({ ...view({ loadedAt: null, rejected: null }), servers: [server('files', null, reason)] }).servers[0]!.entryError, 'invalid configuration: mcpServers.files.timeout: expected a number, found the string "x"; mcpServers.files.env.TOKEN=[REDACTED]');
  assert.not.match(liveText(view({ loadedAt: null, rejected: null })), /Entries not taken/);
});

test('status-text :: LAST EXIT: a signal, a code, or a process that never ran (a command not found)', () => {
  const at = '2026-11-26T23:00:00.000Z';
  const table: [{ code: number | null; signal: string | null }, string][] = [
    [{ code: 1, signal: null }, `code 1 at ${at}`],
    [{ code: null, signal: 'SIGKILL' }, `SIGKILL at ${at}`],
    [{ code: null, signal: null }, `did not start at ${at}`],
  ];
  for (const [exit, shown] of table) {
    const one = { ...server('x', 'failed'), lastExit: { ...exit, at, pid: null } } as BackendStatusView;
    const text = liveText({ ...view({ loadedAt: at, rejected: null }), servers: [one] });
    assert.ok(text.includes(shown), `${JSON.stringify(exit)}: ${text}`);
    assert.not.ok(text.includes('code null'), text);
  }
});

test.run();
