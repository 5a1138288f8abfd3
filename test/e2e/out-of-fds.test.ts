// A service out of file descriptors (many backends can take it there) keeps running: connections
// beyond the limit are dropped, a change to the configuration made meanwhile loads (at once, or
// tried again once descriptors are free); it answers as before. The limit is lowered on the
// running process with prlimit (util-linux).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startService } from '../helpers/service.ts';

const openFds = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;
const setSoftNofile = (pid: number, limit: number) => execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${limit}:`]);

test('out of fds :: connections are dropped, a change to mcp.json made meanwhile is not lost, the service lives on', async () => {
  const svc = await startService({ config: { mcpServers: {} }, args: ['--health-rate-limit', '0'] });
  const pid = svc.child.pid!;
  const sockets: net.Socket[] = [];
  try {
    await svc.waitForLog((l) => l.msg === 'hub ready');
    await svc.waitForLog((l) => l.msg === 'configuration loaded');
    const original = Number(/Max open files\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/limits`, 'utf8'))![1]);
    setSoftNofile(pid, openFds(pid) + 4);
    // More connections than descriptors left: those beyond the limit are dropped.
    const closed = Array.from({ length: 40 }, () => {
      const socket = net.connect(svc.port, '127.0.0.1');
      socket.on('error', () => undefined);
      sockets.push(socket);
      return new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 3_000).unref();
      });
    });
    const dropped = (await Promise.all(closed)).filter(Boolean).length;
    assert.ok(dropped > 0, `some connections dropped (${dropped} of 40)`);
    // A change to the configuration while out of descriptors is not lost: it loads then, or once
    // descriptors are free (a load that failed for want of them is tried again).
    const loaded = () => svc.logs.filter((l) => l.msg === 'configuration loaded').length;
    const before = loaded();
    fs.writeFileSync(`${svc.configFile}.new`, JSON.stringify({ mcpServers: {}, serverDefaults: { requestTimeout: 12_345 } }, null, 1));
    fs.renameSync(`${svc.configFile}.new`, svc.configFile);
    await new Promise((r) => setTimeout(r, 2_000));
    for (const socket of sockets) socket.destroy();
    setSoftNofile(pid, original);
    await svc.waitFor(async () => (await svc.get('/health/live')).status === 200, 'answers again once descriptors are free');
    assert.is(svc.child.exitCode, null, 'still running');
    await svc.waitFor(async () => loaded() > before, 'the change made while out of descriptors loads', 45_000);
    // And the next change loads as usual.
    const after = loaded();
    fs.writeFileSync(`${svc.configFile}.new`, JSON.stringify({ mcpServers: {}, serverDefaults: { requestTimeout: 23_456 } }));
    fs.renameSync(`${svc.configFile}.new`, svc.configFile);
    await svc.waitFor(async () => loaded() > after, 'the next change loads', 20_000);
  } finally {
    for (const socket of sockets) socket.destroy();
    await svc.stop();
  }
});

test.run();
