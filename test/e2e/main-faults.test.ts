// End to end: the main thread survives what a library bug leaves on it (issue 12).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { ROOT, startService } from '../helpers/service.ts';

test('main faults :: an unhandled rejection on the main thread is logged, not fatal', async () => {
  const svc = await startService({ entry: path.join(ROOT, 'test/fixtures/main/serve-then-reject.ts'), config: { mcpServers: {} }, args: ['--health-rate-limit', '0'] });
  try {
    const line = await svc.waitForLog((l) => l.msg === 'unhandled rejection on the main thread');
    assert.match(String(line.error), /nobody handles this rejection/);
    assert.is((await svc.get('/health/live')).status, 200);
    assert.is(svc.child.exitCode, null);
  } finally {
    await svc.stop();
  }
});

test.run();
