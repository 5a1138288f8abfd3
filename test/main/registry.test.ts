// The registry and its backend handles with real workers and real children: start, metadata
// changes without a restart, replacement, removal, and a worker thread that dies (supervision
// restarts it; its child is reaped, never left a zombie or an orphan).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { BackendSpec, LoadedConfig } from '../../lib/config/types.ts';
import { BackendRegistry } from '../../lib/main/registry.ts';
import { StartQueue } from '../../lib/main/start-queue.ts';
import { StateTable } from '../../lib/main/state-table.ts';
import { isAlive } from '../helpers/processes.ts';
import { FIXTURE_SERVER, poll, ROOT } from '../helpers/service.ts';

const silent = pino({ level: 'silent' });

const spec = (name: string, extra: Partial<BackendSpec> = {}): BackendSpec =>
  ({
    name,
    tags: [],
    connectionTimeout: 10_000,
    requestTimeout: 10_000,
    protocolVersion: 'auto',
    disabledTools: [],
    toolDescriptionOverrides: {},
    type: 'stdio',
    command: process.execPath,
    args: [FIXTURE_SERVER],
    cwd: undefined,
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'ignore',
    supervision: { restartOnExit: false, maxRestarts: 5, restartDelay: 100 },
    ...extra,
  }) as BackendSpec;

const config = (...specs: BackendSpec[]): LoadedConfig => ({ file: '/x/mcp.json', dir: '/x', warnings: [], servers: specs.map((s) => ({ name: s.name, disabled: false, tags: s.tags, spec: s, warnings: [] })) });

function registry(options: { worker?: { file: string; workerData: Record<string, unknown> }; starts?: StartQueue; log?: pino.Logger; workerNice?: number } = {}) {
  const table = new StateTable();
  const facts: string[] = [];
  const downs: string[] = [];
  const reg = new BackendRegistry(table, {
    log: silent,
    logLevel: 'fatal',
    logFormat: 'json',
    pingIntervalMs: 60_000,
    pingTimeoutMs: 5_000,
    stopGraceMs: 500,
    maxMessageBytes: 1024 * 1024,
    stateDir: null,
    workerNice: 0,
    onFacts: (name) => facts.push(name),
    onDown: (_name, message) => downs.push(message),
    ...options,
  });
  return { table, reg, facts, downs };
}

// Zombies among `pids` (all files run in one process: other tests' children are not this test's).
function zombieChildren(pids: Set<number>): number[] {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e) && pids.has(Number(e))).filter((e) => {
    try {
      const status = fs.readFileSync(`/proc/${e}/status`, 'utf8');
      return /^PPid:\s+(\d+)$/m.exec(status)?.[1] === String(process.pid) && /^State:\s+Z/m.test(status);
    } catch {
      return false;
    }
  }).map(Number);
}

test('registry :: starts, applies a metadata change without a restart, replaces a changed backend, removes a gone one; each said in the log by name', async () => {
  const lines: { backend?: string; changed?: string[]; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const said = () => lines.filter((l) => l.backend && /^server /.test(l.msg)).map((l) => [l.backend, l.msg, l.changed]);
  const { table, reg, facts } = registry({ log });
  try {
    await reg.apply(config(spec('a'), spec('b')));
    assert.equal(said(), [], 'the first configuration starts its servers without a line each');
    await poll(async () => ['a', 'b'].every((n) => table.backends.get(n)?.phase === 'connected'), 'both connected', 20_000);
    const pid = table.backends.get('a')!.pid;
    assert.is(table.backends.get('a')!.counts?.tools, 6, 'counts only on the main thread');
    assert.is(table.backends.get('a')!.inventory, null);
    assert.ok(facts.includes('a') && facts.includes('b'), 'every change is announced for the hubs');
    await reg.apply(config(spec('a', { tags: ['new'], disabledTools: ['env'] }), spec('b', { args: [FIXTURE_SERVER, '--changed'] })));
    assert.is(table.backends.get('a')!.pid, pid, 'tags and disabledTools apply without a restart');
    assert.equal(table.backends.get('a')!.tags, ['new']);
    await poll(async () => table.backends.get('b')?.phase === 'connected', 'b replaced and connected', 20_000);
    assert.equal(said(), [
      ['a', 'server metadata changed: applied without a restart', ['disabledTools', 'tags']],
      ['b', 'server changed in the configuration: restarting it', ['args']],
    ]);
    lines.length = 0;
    await reg.apply(config(spec('a', { tags: ['new'], disabledTools: ['env'] }), spec('c')));
    assert.not.ok(table.backends.has('b'), 'b removed');
    assert.equal(said(), [
      ['c', 'server added to the configuration: starting it', undefined],
      ['b', 'server removed from the configuration: stopping it', undefined],
    ]);
  } finally {
    await reg.stopAll();
  }
});

test("registry :: a nice below the service's set by a reload is said, as at a start; the backend keeps its process", async () => {
  const lines: { backend?: string; level: number; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const { table, reg } = registry({ log, workerNice: 8 });
  try {
    await reg.apply(config(spec('a')));
    await poll(async () => table.backends.get('a')?.phase === 'connected', 'a connected', 20_000);
    const pid = table.backends.get('a')!.pid;
    await reg.apply(config(spec('a', { nice: 3 } as Partial<BackendSpec>)));
    assert.is(table.backends.get('a')!.pid, pid, 'the priority it runs at is the same: no restart');
    const warned = lines.filter((l) => l.level === 40 && l.backend === 'a').map((l) => l.msg);
    assert.equal(warned, ["nice 3 is below the service's --worker-nice 8: the backend runs at 8 (a higher priority would need privileges the service does not take)"]);
  } finally {
    await reg.stopAll();
  }
});

test('registry :: an entry that turns invalid leaves its backend running, its state saying why; valid again, it is cleared without a restart', async () => {
  const lines: { backend?: string; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const { table, reg } = registry({ log });
  const invalid: LoadedConfig = {
    file: '/x/mcp.json',
    dir: '/x',
    warnings: [],
    servers: [{ name: 'a', disabled: false, tags: [], warnings: [], problems: [{ file: '/x/mcp.json', path: 'mcpServers.a.url', expected: 'a URL', found: 'the string "https://u:hunter2@h"' }] }],
  };
  try {
    await reg.apply(config(spec('a')));
    await poll(async () => table.backends.get('a')?.phase === 'connected', 'a connected', 20_000);
    const pid = table.backends.get('a')!.pid;
    await reg.apply(invalid);
    const state = table.backends.get('a')!;
    assert.is(state.pid, pid, 'still running its last good entry');
    assert.is(state.phase, 'connected');
    assert.is(state.entryError, 'invalid configuration: mcpServers.a.url: expected a URL, found the string "https://[REDACTED]@h"');
    await reg.apply(config(spec('a')));
    assert.is(table.backends.get('a')!.entryError, null);
    assert.is(table.backends.get('a')!.pid, pid, 'the same entry as before: no restart');
    assert.ok(lines.some((l) => l.backend === 'a' && l.msg === 'server entry is valid again'));
  } finally {
    await reg.stopAll();
  }
});

test('registry :: a backend worker that dies is restarted by supervision; its child is reaped, not orphaned', async () => {
  const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-fail-')), 'fail');
  fs.writeFileSync(marker, '');
  const { table, reg, downs } = registry({
    worker: { file: path.join(ROOT, 'workers/bootstrap.mjs'), workerData: { entry: new URL('../fixtures/workers/throws-after-connect.ts', import.meta.url).href, failMarker: marker } },
  });
  const children = new Set<number>();
  try {
    await reg.apply(config(spec('phoenix', { supervision: { restartOnExit: true, maxRestarts: 0, restartDelay: 50 } })));
    // Each worker dies right after connecting, five times; then the marker goes and it stays up.
    await poll(
      async () => {
        const pid = table.backends.get('phoenix')?.pid;
        if (pid) children.add(pid);
        return children.size >= 5;
      },
      'five workers that died after connecting',
      60_000,
    );
    fs.rmSync(marker);
    await poll(async () => table.backends.get('phoenix')?.phase === 'connected' && table.backends.get('phoenix')?.supervision?.state === 'connected', 'phoenix connected again', 30_000);
    const alive = table.backends.get('phoenix')!.pid!;
    assert.ok(table.backends.get('phoenix')!.supervision!.attempt >= 4, 'supervision counted the failures');
    assert.ok(downs.some((m) => /restarted; the request was not completed/.test(m)), 'calls in flight were failed at each death');
    assert.equal([...children].filter((pid) => pid !== alive && isAlive(pid)), [], 'no child outlived its worker');
    // A child that just exited is a zombie until the next turn of its loop: a leak stays one.
    await poll(async () => zombieChildren(children).length === 0, 'no zombie', 10_000);
  } finally {
    await reg.stopAll();
    fs.rmSync(path.dirname(marker), { recursive: true, force: true });
  }
  await poll(async () => zombieChildren(children).length === 0, 'no zombie after the stop', 10_000);
});

test('registry :: with one worker start at a time every backend still starts; one stopped while it waits never gets a worker', async () => {
  const starts = new StartQueue(1);
  const { table, reg } = registry({ starts });
  try {
    await reg.apply(config(spec('a'), spec('b'), spec('c')));
    assert.equal(starts.counts, { running: 1, waiting: 2 }, 'one worker starting, two waiting');
    assert.is(table.backends.get('c')!.phase, 'queued');
    await reg.apply(config(spec('a'), spec('b')));
    assert.not.ok(table.backends.has('c'), 'c removed while it waited');
    await poll(async () => ['a', 'b'].every((n) => table.backends.get(n)?.phase === 'connected'), 'a and b connected, one after the other', 20_000);
    assert.equal(starts.counts, { running: 0, waiting: 0 }, 'every slot given back');
  } finally {
    await reg.stopAll();
  }
});

test("registry :: a start slot covers the backend's first start, not only its worker's load: the next waits until it connects", async () => {
  const starts = new StartQueue(1);
  const { table, reg } = registry({ starts });
  const slow = path.join(ROOT, 'test/fixtures/backends/initializes-slowly.mjs');
  try {
    // 'slow' answers initialize 1.5 s after it starts; its worker loads long before that.
    await reg.apply(config(spec('slow', { args: [slow] }), spec('next')));
    let slowWhenNextLeftTheQueue: string | undefined;
    // Well within the 15 s after which a first start gives its slot back anyway.
    await poll(async () => {
      if (table.backends.get('next')!.phase !== 'queued') slowWhenNextLeftTheQueue ??= table.backends.get('slow')!.phase;
      return slowWhenNextLeftTheQueue;
    }, "'next' out of the queue", 10_000);
    assert.is(slowWhenNextLeftTheQueue, 'connected', "'next' waited for 'slow' to connect, not for its worker to load");
    await poll(async () => table.backends.get('next')!.phase === 'connected', "'next' connected", 20_000);
    assert.equal(starts.counts, { running: 0, waiting: 0 }, 'every slot given back');
  } finally {
    await reg.stopAll();
  }
});

test("registry :: a first start that fails gives its slot back: the next backend starts", async () => {
  const starts = new StartQueue(1);
  const { table, reg } = registry({ starts });
  const hangs = path.join(ROOT, 'test/fixtures/backends/hangs-on-initialize.mjs');
  try {
    await reg.apply(config(spec('hangs', { args: [hangs], connectionTimeout: 1_000, protocolVersion: 'legacy' }), spec('next')));
    // Well within the 15 s after which a first start gives its slot back anyway.
    await poll(async () => table.backends.get('hangs')!.phase === 'failed' && table.backends.get('next')!.phase === 'connected', "'hangs' failed, 'next' connected", 10_000);
    assert.equal(starts.counts, { running: 0, waiting: 0 });
  } finally {
    await reg.stopAll();
  }
});

test("registry :: a remote backend's slot goes back once its worker has loaded: it boots no process here", async () => {
  // A server that accepts connections and never answers: the remote start hangs for its connectionTimeout.
  const sockets = new Set<net.Socket>();
  const silentServer = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
  const { port } = silentServer.address() as net.AddressInfo;
  const starts = new StartQueue(1);
  const { table, reg } = registry({ starts });
  try {
    const remote = { ...spec('remote'), type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, connectionTimeout: 60_000 } as unknown as BackendSpec;
    await reg.apply(config(remote, spec('next')));
    await poll(async () => table.backends.get('next')!.phase === 'connected', "'next' connected while 'remote' still connects", 10_000);
    assert.is(table.backends.get('remote')!.phase, 'connecting');
  } finally {
    await reg.stopAll();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silentServer.close(resolve));
  }
});

test.run();
