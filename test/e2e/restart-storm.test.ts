// End to end: a storm of `restart` requests on the control socket, during a backend's first
// connect and while it is a queued replacement, never runs two children of that backend, and
// SIGTERM leaves none (issue 12, item 1). The backend ignores stdin EOF, so only a signal ends it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { processesWith } from '../helpers/processes.ts';
import { poll, ROOT, startService, writeConfig } from '../helpers/service.ts';

const IGNORES_EOF = path.join(ROOT, 'test/fixtures/backends/ignores-stdin-eof.mjs');
const T = suite('e2e restart storm');

// Counts the marked children every few milliseconds; `max` is the most seen at once.
function sampler(marker: string) {
  let max = 0;
  const timer = setInterval(() => (max = Math.max(max, processesWith(marker).length)), 5);
  return { get max() { return max; }, stop: () => clearInterval(timer) };
}

const storm = (socket: string, n: number) =>
  Promise.all(Array.from({ length: n }, () => callControl(socket, 'restart', { server: 'storm' }, { timeoutMs: 30_000 }).catch((e: Error) => e)));

T('restart storm :: during the first connect and during a queued replacement: one child at a time, none after SIGTERM', async () => {
  const marker = `storm-${randomUUID()}`;
  const config = (value: string) => ({ mcpServers: { storm: { command: process.execPath, args: [IGNORES_EOF, marker], env: { GENERATION: value } } } });
  const svc = await startService({ config: config('1'), args: ['--health-rate-limit', '0'] });
  const socket = socketPath(svc.dir);
  const seen = sampler(marker);
  try {
    // First connect: as soon as the service knows the backend, while it still starts.
    await poll(async () => {
      const status = await callControl(socket, 'status');
      return status.ok && (status.result as { servers: { name: string }[] }).servers.some((s) => s.name === 'storm');
    }, 'the backend configured');
    const first = await storm(socket, 40);
    assert.ok(first.some((r) => !(r instanceof Error) && r.ok), 'restarts were accepted');
    await poll(async () => (await svc.get('/health/mcp/storm')).status === 200, 'storm connected', 20_000);
    assert.is(processesWith(marker).length, 1, 'exactly one child after the first storm');

    // Queued replacement: the old child ignores stdin EOF, so stopping it takes the 2 s grace.
    writeConfig(svc.configFile, config('2'));
    await poll(async () => (await svc.get('/health/mcp')).body.loading.pending === 1, 'the replacement queued behind the old instance');
    await storm(socket, 40);
    await poll(async () => (await svc.get('/health/mcp/storm')).status === 200 && processesWith(marker).length === 1, 'the replacement connected', 20_000);
    assert.is(seen.max, 1, `never more than one child at once (saw ${seen.max})`);
  } finally {
    seen.stop();
    await svc.stop('SIGTERM');
  }
  assert.equal(processesWith(marker), [], 'no child survives SIGTERM');
});

T.run();
