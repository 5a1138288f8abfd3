// End to end: a backend's stderr limits, from the `agent serve` flags and mcp.json, changed in
// mcp.json while the backend runs: the new quota applies at once and the backend keeps its process.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { DEFAULT_STDERR_LIMITS } from '../../lib/shared/stderr-limits.ts';
import { type LogLine, ROOT, runCli, type Service, startService, writeConfig } from '../helpers/service.ts';

const STEADY = path.join(ROOT, 'test/fixtures/backends/writes-distinct-stderr-steadily.mjs');
const steady = (stderrLimits?: Record<string, number>) => ({ command: process.execPath, args: [STEADY], env: { STEADY_INTERVAL_MS: '10' }, ...(stderrLimits ? { stderrLimits } : {}) });

const isSteadyLine = (l: LogLine) => l.backend === 'steady' && l.stream === 'stderr' && typeof l.msg === 'string' && l.msg.startsWith('steady stderr line');
const limitsChanged = (l: LogLine) => l.backend === 'steady' && typeof l.msg === 'string' && l.msg.startsWith('stderr limits changed');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: Service;

async function steadyPid(): Promise<number | null> {
  const answer = await callControl(socketPath(svc.dir), 'status', {});
  if (!answer.ok) throw new Error(answer.error.message);
  const entry = (answer.result as { servers: { name: string; pid: number | null; status: string }[] }).servers.find((s) => s.name === 'steady');
  return entry?.status === 'connected' ? entry.pid : null;
}

const E = suite('e2e stderr limits');

E.before(async () => {
  // The server's quota is generous; the summary interval comes from the service-wide flag.
  svc = await startService({
    config: { mcpServers: { steady: steady({ linesPerWindow: 1000, windowSeconds: 1 }) } },
    args: ['--stderr-summary-interval-seconds', '1', '--health-rate-limit', '0'],
  });
  await svc.waitFor(async () => (await steadyPid()) ?? false, 'the steady backend connected');
});

E.after(async () => {
  await svc.stop();
});

E('e2e stderr limits :: a tightened limit in mcp.json applies to the running backend at once, same pid', async () => {
  await svc.waitFor(async () => svc.logs.filter(isSteadyLine).length >= 40 || false, 'more lines than the default quota of 20 allows');
  const pid = await steadyPid();
  const connectsBefore = svc.logs.filter((l) => l.msg === 'backend connected' && l.backend === 'steady').length;

  writeConfig(svc.configFile, { mcpServers: { steady: steady({ linesPerWindow: 2, windowSeconds: 60 }) } });
  const changed = await svc.waitForLog(limitsChanged);
  assert.equal(changed.stderrLimits, { ...DEFAULT_STDERR_LIMITS, linesPerWindow: 2, windowSeconds: 60, summaryIntervalSeconds: 1 });
  // The main thread's line and the worker's are written by different threads: either may come first.
  await svc.waitForLog((l) => l.msg === 'server metadata changed: applied without a restart' && l.backend === 'steady');
  const from = svc.logs.indexOf(changed);

  // Summaries every second (the flag) say what the new quota dropped.
  await svc.waitFor(async () => svc.logs.slice(from).some((l) => l.backend === 'steady' && typeof l.suppressed === 'number') || false, 'a suppressed summary after the change', 5_000);
  await sleep(1_500);
  const after = svc.logs.slice(from);
  assert.is(after.filter(isSteadyLine).length, 2, 'two distinct lines in the new 60 s window, then only summaries');
  const suppressed = after.filter((l) => l.backend === 'steady' && typeof l.suppressed === 'number').reduce((sum, l) => sum + (l.suppressed as number), 0);
  assert.ok(suppressed > 50, `the rest were suppressed (${suppressed})`);

  assert.is(await steadyPid(), pid, 'the backend kept its process');
  assert.is(svc.logs.filter((l) => l.msg === 'backend connected' && l.backend === 'steady').length, connectsBefore, 'no reconnect');
});

E('e2e stderr limits :: removing the server\'s limits falls back to the flags and the spec defaults, same pid', async () => {
  const pid = await steadyPid();
  const seen = svc.logs.filter(limitsChanged).length;
  writeConfig(svc.configFile, { mcpServers: { steady: steady() } });
  await svc.waitFor(async () => svc.logs.filter(limitsChanged).length > seen || false, 'the second change');
  assert.equal(svc.logs.filter(limitsChanged).at(-1)!.stderrLimits, { ...DEFAULT_STDERR_LIMITS, summaryIntervalSeconds: 1 });
  assert.is(await steadyPid(), pid);
});

E.run();

const Cli = suite('e2e stderr limits (command line)');

Cli('e2e stderr limits :: an invalid --stderr-lines-per-window is a usage error (exit 2)', async () => {
  const out = await runCli(['serve', '--port', '0', '--stderr-lines-per-window', '0']);
  assert.is(out.code, 2);
  assert.match(out.stderr, /Expected --stderr-lines-per-window to be a whole number from 1 to 1000000, got "0"/);
});

Cli('e2e stderr limits :: an invalid AGENT_STDERR_LINE_BYTES is a usage error (exit 2)', async () => {
  const out = await runCli(['serve', '--port', '0'], { AGENT_STDERR_LINE_BYTES: '8KiB' });
  assert.is(out.code, 2);
  assert.match(out.stderr, /Expected AGENT_STDERR_LINE_BYTES to be a whole number from 1 to 1048576, got "8KiB"/);
});

Cli.run();
