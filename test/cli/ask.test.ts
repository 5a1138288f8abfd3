// The CLI's control-bus request: what it passes on of the service's error messages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ask } from '../../lib/cli/mcp-commands.ts';
import { ControlError, type ControlHandlers } from '../../lib/control/protocol.ts';
import { socketPath, startControlServer } from '../../lib/control/server.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-cli-ask-'));
const location = { file: path.join(dir, 'mcp.json'), dir };
const fail = (message: string) => () => {
  throw new ControlError('invalid_config', message);
};
const handlers: ControlHandlers = {
  status: () => ({ live: true }),
  restart: fail(`Server 'x' not found in ${location.file}`),
  reload: fail(`${location.file} at mcpServers.a.url: expected an absolute http:// or https:// URL, found https://user:hunter2@example.com/mcp?token=abc123`),
  tools: fail('unused'),
  fault: fail('unused'),
};
const server = await startControlServer(socketPath(dir), handlers);

test.after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ask :: error messages keep paths and URLs (operator channel, decisions §4)', async () => {
  assert.equal(await ask(location, 'restart', { server: 'x' }), { kind: 'error', code: 'invalid_config', message: `Server 'x' not found in ${location.file}` });
});

test('ask :: error messages lose their credentials', async () => {
  const answer = await ask(location, 'reload', {});
  assert.equal(answer, {
    kind: 'error',
    code: 'invalid_config',
    message: `${location.file} at mcpServers.a.url: expected an absolute http:// or https:// URL, found https://[REDACTED]@example.com/mcp?token=[REDACTED]`,
  });
});

test('ask :: no service is `none`', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-cli-ask-none-'));
  try {
    assert.equal(await ask({ file: path.join(empty, 'mcp.json'), dir: empty }, 'status', {}), { kind: 'none' });
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test.run();
