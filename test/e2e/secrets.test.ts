// A backend that prints its own configured secret in no recognisable shape, and a secret URL
// parameter: neither reaches the service log, the health output or `agent mcp status`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startService } from '../helpers/service.ts';

const SECRET = 'supersecret-e2e-4711';
const URL_SIG = 'urlsig-777777';
const leaky = {
  command: process.execPath,
  args: ['-e', `process.stderr.write('auth failed for key ' + process.env.API_KEY + ' at https://api.example.com/v1?sig=${URL_SIG}\\n'); setTimeout(() => process.exit(1), 100)`],
  env: { API_KEY: SECRET },
  restartOnExit: false,
};

test('secrets :: a configured secret and a secret URL parameter printed by a backend are masked in the log, /health and agent mcp status', async () => {
  const svc = await startService({ config: { mcpServers: { leaky } }, args: ['--health-info-level', 'full'] });
  try {
    const line = await svc.waitForLog((l) => l.backend === 'leaky' && l.stream === 'stderr');
    assert.is(line.msg, 'auth failed for key [REDACTED] at https://api.example.com/v1?sig=[REDACTED]');
    const failed = await svc.waitFor(async () => {
      const r = await svc.get('/health/mcp/leaky');
      return typeof r.body.lastError === 'string' && r.body.lastError.includes('last stderr') && r;
    }, 'the exit reported with its last stderr line');
    assert.match(failed.body.lastError, /last stderr: auth failed for key \[REDACTED\]/);
    const status = await runCli(['mcp', 'status', '--config', svc.configFile]);
    assert.match(status.stdout, /auth failed for key \[REDACTED\]/, status.stdout);
    for (const [where, text] of [
      ['log', JSON.stringify(svc.logs)],
      ['/health', JSON.stringify((await svc.get('/health')).body)],
      ['/health/mcp/leaky', JSON.stringify(failed.body)],
      ['agent mcp status', status.stdout + status.stderr],
    ] as const) {
      assert.not.ok(text.includes(SECRET), `${where} shows the configured secret`);
      assert.not.ok(text.includes(URL_SIG), `${where} shows the URL signature`);
    }
  } finally {
    await svc.stop();
  }
});

test.run();
