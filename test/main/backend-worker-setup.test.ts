import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import type { BackendSpec } from '../../lib/config/types.ts';
import { createLogger } from '../../lib/shared/logger.ts';
import { resolveStderrLimits } from '../../lib/shared/stderr-limits.ts';
import { backendWorkerData, type HandleOptions } from '../../lib/main/backend-worker-setup.ts';

const options: HandleOptions = {
  log: createLogger('fatal', 'json'),
  logLevel: 'debug',
  logFormat: 'pretty',
  pingIntervalMs: 30_000,
  pingTimeoutMs: 10_000,
  stopGraceMs: 2_000,
  maxMessageBytes: 1024,
  stateDir: '/var/lib/agent',
  workerNice: 10,
  inputTimeoutMs: 60_000,
};

// Exactly these keys: the handle's callbacks and its logger cannot cross into a worker.
test('backend worker setup :: the service-wide settings and this worker\'s own go into its workerData', () => {
  const { port1, port2 } = new MessageChannel();
  const spec = { name: 'db', type: 'stdio' } as BackendSpec;
  const stderrLimits = resolveStderrLimits({ lineBytes: 512 }, undefined);
  const data = backendWorkerData(spec, options, { api: port2, nice: 15, stderrLimits, autoStart: true });
  assert.equal(data, {
    spec,
    api: port2,
    log: { level: 'debug', format: 'pretty' },
    pingIntervalMs: 30_000,
    pingTimeoutMs: 10_000,
    maxMessageBytes: 1024,
    stateDir: '/var/lib/agent',
    inputTimeoutMs: 60_000,
    nice: 15,
    stderrLimits,
    autoStart: true,
  });
  port1.close();
  port2.close();
});

test.run();
