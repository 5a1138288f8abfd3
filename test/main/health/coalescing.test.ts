import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newBackendState } from '../../../lib/shared/backend-state.ts';
import { StateTable } from '../../../lib/main/state-table.ts';
import { createHealthRateLimiter } from '../../../lib/main/health/rate-limit.ts';
import { createApp } from '../../../lib/main/app.ts';

const FACTS = { uptimeSeconds: 1, heapUsedBytes: 1, heapTotalBytes: 2, pid: 1, nodeVersion: 'v20', platform: 'linux', arch: 'x64', version: '9.9.9' };

// /health and /health/ready coalesce within one millisecond of the injected clock.
test('health coalescing :: the same millisecond reuses the report; the next one sees changes', async () => {
  const table = new StateTable();
  table.configuration = { loaded: true, serverCount: 1, enabledCount: 1, disabledCount: 0, authEnabled: false, transport: 'http' };
  const b = newBackendState('a', [], null);
  b.phase = 'connected';
  table.backends.set('a', b);
  let now = 1_000_000;
  let builds = 0;
  const app = createApp({
    table,
    level: 'minimal',
    limiter: createHealthRateLimiter({ limit: 0, windowSeconds: 300, exempt: [] }),
    now: () => now,
    facts: () => (builds++, FACTS),
  }, () => null, (_req, res) => void res.writeHead(404).end());
  const server = http.createServer(app.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const health = async () => (await (await fetch(`${base}/health`)).json()) as { status: string; servers: { healthy: number } };
  try {
    assert.is((await health()).status, 'healthy');
    b.phase = 'failed';
    assert.is((await health()).status, 'healthy', 'same millisecond: the same report');
    assert.is(builds, 1, 'built once');
    now += 1;
    const next = await health();
    assert.is(next.status, 'unhealthy');
    assert.is(next.servers.healthy, 0);
    assert.is(builds, 2);
  } finally {
    server.close();
  }
});

test.run();
