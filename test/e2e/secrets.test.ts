// A backend that prints its own configured secrets in no recognisable shape (one with a run of
// spaces and a tab, one where the 120-character hint of lastError would cut it), and a secret
// URL parameter: none reaches the service log, the health output or `agent mcp status`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FIXTURE_SERVER, runCli, startService } from '../helpers/service.ts';

const SECRET = 'supersecret-e2e-4711';
const SPACED = 'correct  horse\tbattery staple';
const URL_SIG = 'urlsig-777777';
const CUT = 'Zq8vTt2mP4nR7sK1wX9yL3';
const PEM = ['-----BEGIN PRIVATE KEY-----', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'VJTUt9Us8cKjMZlinesOfBase64ab', '-----END PRIVATE KEY-----'].join('\n');
const script = [
  `process.stderr.write('auth failed for key ' + process.env.API_KEY + ' at https://api.example.com/v1?sig=${URL_SIG}\\n');`,
  `process.stderr.write('login with ' + process.env.DB_PASSWORD + ' refused\\n');`,
  // A multi-line secret reaches the log line by line.
  `process.stderr.write('bad key: ' + process.env.APP_PRIVATE_KEY + '\\n');`,
  // The last line: 110 characters, then a secret the exit's 120-character hint would cut.
  `process.stderr.write('x'.repeat(110) + process.env.SESSION_TOKEN + '\\n');`,
  'setTimeout(() => process.exit(1), 100);',
].join(' ');
const leaky = { command: process.execPath, args: ['-e', script], env: { API_KEY: SECRET, DB_PASSWORD: SPACED, SESSION_TOKEN: CUT, APP_PRIVATE_KEY: PEM }, restartOnExit: false };
// An env array entry refused for its name (its error reaches /health and the CLI), and secret-looking flags among a backend's args.
const badEnv = { command: process.execPath, env: ['DB-PASS=hunter2SECRET19'] };
const flagged = { command: process.execPath, args: [FIXTURE_SERVER, '--token=argsecretTOK123', '--password', 'argpwSEC3'] };
const leaks = (text: string) => [SECRET, URL_SIG, 'correct horse', 'battery staple', CUT.slice(0, 6), 'MIIEvQIBADANBgkq', 'VJTUt9Us8cKj', 'hunter2SECRET19', 'argsecretTOK123', 'argpwSEC3'].filter((s) => text.includes(s));

test('secrets :: configured secrets and a secret URL parameter printed by a backend are masked in the log, /health and agent mcp status', async () => {
  const svc = await startService({ config: { mcpServers: { leaky, badEnv, flagged } }, args: ['--health-info-level', 'full'] });
  try {
    const line = await svc.waitForLog((l) => l.backend === 'leaky' && l.stream === 'stderr');
    assert.is(line.msg, 'auth failed for key [REDACTED] at https://api.example.com/v1?sig=[REDACTED]');
    await svc.waitForLog((l) => l.backend === 'leaky' && l.stream === 'stderr' && /^login with/.test(String(l.msg)));
    const failed = await svc.waitFor(async () => {
      const r = await svc.get('/health/mcp/leaky');
      return typeof r.body.lastError === 'string' && r.body.lastError.includes('last stderr') && r;
    }, 'the exit reported with its last stderr line');
    assert.match(failed.body.lastError, /last stderr: x{110}\[/);
    const status = await runCli(['mcp', 'status', '--config', svc.configFile]);
    const verbose = await runCli(['mcp', 'status', '--verbose', '--config', svc.configFile]);
    assert.match(verbose.stdout, /found the entry "DB-PASS=…" \(its value not shown\)/, verbose.stdout);
    assert.match(verbose.stdout, /"--token=\*\*\*\*","--password","\*\*\*\*"/, verbose.stdout);
    const badEnvHealth = (await svc.get('/health/mcp/badEnv')).body;
    assert.match(badEnvHealth.lastError, /found the entry "DB-PASS=…" \(its value not shown\)/);
    assert.match(status.stdout, /last stderr: x{110}\[/, status.stdout);
    assert.ok(svc.logs.some((l) => l.msg === 'login with [REDACTED] refused'), 'a secret with a run of spaces and a tab');
    for (const [where, text] of [
      ['log', JSON.stringify(svc.logs)],
      ['/health', JSON.stringify((await svc.get('/health')).body)],
      ['/health/mcp/leaky', JSON.stringify(failed.body)],
      ['agent mcp status', status.stdout + status.stderr],
      ['agent mcp status --verbose', verbose.stdout + verbose.stderr],
      ['/health/mcp/badEnv', JSON.stringify(badEnvHealth)],
    ] as const) {
      assert.equal(leaks(text), [], `${where} shows a secret`);
    }
  } finally {
    await svc.stop();
  }
});

test("secrets :: a remote URL's user:password@ is masked when the backend echoes the Basic header it was sent", async () => {
  // A remote backend that refuses every request, naming the Authorization header it got.
  const echo = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad request, you sent ${req.headers.authorization} / auth=${req.headers.authorization}`));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const port = (echo.address() as AddressInfo).port;
  const token = Buffer.from('admin:UrlPassw0rdQQ').toString('base64');
  const svc = await startService({ config: { mcpServers: { rbasic: { url: `http://admin:UrlPassw0rdQQ@127.0.0.1:${port}/mcp`, connectionTimeout: 2000 } } }, args: ['--health-info-level', 'basic'] });
  try {
    const failed = await svc.waitFor(async () => {
      const r = await svc.get('/health/mcp/rbasic');
      return typeof r.body.lastError === 'string' && r.body.lastError.includes('you sent') && r;
    }, 'the refusal reported');
    assert.match(failed.body.lastError, /you sent Basic \[REDACTED\]/);
    const status = await runCli(['mcp', 'status', 'rbasic', '--config', svc.configFile]);
    for (const [where, text] of [
      ['log', JSON.stringify(svc.logs)],
      ['/health/mcp', JSON.stringify((await svc.get('/health/mcp')).body)],
      ['/health/mcp/rbasic', JSON.stringify(failed.body)],
      ['agent mcp status', status.stdout + status.stderr],
    ] as const) {
      assert.ok(!text.includes(token) && !text.includes('UrlPassw0rdQQ'), `${where} shows the credentials: ${text.slice(0, 400)}`);
    }
  } finally {
    await svc.stop();
    echo.closeAllConnections();
    await new Promise((resolve) => echo.close(resolve));
  }
});

test('secrets :: a configured secret in a backend’s MCP error reaches no client, in its message or its data', async () => {
  const key = 'plainkeyvalue-90210';
  const svc = await startService({ config: { mcpServers: { keyed: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_API_KEY: key } } } } });
  try {
    await svc.waitFor(async () => (await svc.get('/health/mcp/keyed')).status === 200, 'keyed connected');
    for (const mode of ['auto', 'legacy'] as const) {
      const client = new Client({ name: 'secrets', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.base}/mcp`)));
      const error = await client.readResource({ uri: 'keyed_agent_fixture://fail' }).then(
        () => null,
        (e: { message: string; data?: unknown }) => e,
      );
      await client.close();
      assert.ok(error, mode);
      assert.match(error!.message, 'auth failed for key [REDACTED]', mode);
      assert.not.ok(JSON.stringify([error!.message, error!.data]).includes(key), `${mode}: ${JSON.stringify(error)}`);
      assert.equal(error!.data, { tried: ['[REDACTED]'], code: 'backend_error' }, mode);
    }
  } finally {
    await svc.stop();
  }
});

test.run();
