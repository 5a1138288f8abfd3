// End to end: backend workers compile the bundle with one shared V8 code cache. The first worker
// has none and makes it; a worker started later is given it and V8 takes it; the cache is kept in
// the state directory, so the next service's first worker takes it too. Behaviour only: which
// cache each worker was given and what V8 did with it (debug log lines), never how fast. Also
// that a connected worker collects its start-up garbage with the `gc` the service gives it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { callControl } from '../../lib/control/client.ts';
import { socketPath } from '../../lib/control/server.ts';
import { FIXTURE_SERVER, type LogLine, type Service, startService, tempDir, writeConfig } from '../helpers/service.ts';

const server = (name: string) => ({ command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: name } });
const loaded = (name: string) => (l: LogLine) => l.msg === 'backend worker loaded' && l.backend === name;
const args = ['--log-level', 'debug', '--worker-start-concurrency', '1', '--no-reload'];

const E = suite('e2e code cache');
let dir: string;
let svc: Service | null = null;

E.before(() => {
  dir = tempDir('agent-code-cache-');
});

E.after(async () => {
  await svc?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

E('e2e code cache :: the first worker makes the cache, a later one compiles from it, the next service reads it from the state directory', async () => {
  svc = await startService({ dir, config: { mcpServers: { first: server('first') } }, args });
  const from = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('backend workers run from'));
  assert.is(from.msg, 'backend workers run from the bundle', 'the worker bundle is fresh (`npm run bundle`)');

  assert.is((await svc.waitForLog(loaded('first'))).codeCache, 'none', 'nothing to start from yet');
  await svc.waitForLog((l) => l.msg === 'backend code cache kept for the next workers' && l.backend === 'first');
  // Once connected, the worker collects its start-up garbage: the service gave it `gc`.
  const collected = await svc.waitForLog((l) => l.msg === 'start-up garbage collected' && l.backend === 'first');
  assert.ok(typeof collected.heapBeforeBytes === 'number' && typeof collected.heapAfterBytes === 'number', JSON.stringify(collected));
  assert.ok((collected.heapAfterBytes as number) < (collected.heapBeforeBytes as number), `the collection freed memory: ${JSON.stringify(collected)}`);
  const files = () => fs.readdirSync(path.join(dir, 'code-cache')).filter((n) => n.endsWith('.bin'));
  await svc.waitFor(async () => fs.existsSync(path.join(dir, 'code-cache')) && files().length === 1, 'the cache written in the state directory');

  // A backend added later gets a new worker, given the cache.
  writeConfig(svc.configFile, { mcpServers: { first: server('first'), second: server('second') } });
  const reload = await callControl(socketPath(dir), 'reload', {});
  assert.ok(reload.ok, 'reloaded');
  const second = await svc.waitForLog(loaded('second'));
  assert.is(second.codeCache, 'accepted');
  assert.ok(!svc.logs.some((l) => l.msg === 'backend code cache kept for the next workers' && l.backend === 'second'), 'a worker that took the cache makes none');
  await svc.stop();

  // The next service on the same state directory starts its first worker from the file.
  svc = await startService({ dir, config: { mcpServers: { first: server('first') } }, args });
  assert.is((await svc.waitForLog(loaded('first'))).codeCache, 'accepted');
  await svc.waitFor(async () => (await svc!.get('/health')).body?.servers?.healthy === 1 || false, 'the backend connected from cached code');
});

E('e2e code cache :: a corrupt cache on disk is made again by the one worker that was given it, and the next service takes the new one', async () => {
  await svc?.stop();
  const state = tempDir('agent-code-cache-corrupt-');
  try {
    svc = await startService({ dir: state, config: { mcpServers: { only: server('only') } }, args });
    await svc.waitForLog(loaded('only'));
    const cacheDir = path.join(state, 'code-cache');
    await svc.waitFor(async () => fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((n) => n.endsWith('.bin')), 'the cache written');
    await svc.stop();
    const file = path.join(cacheDir, fs.readdirSync(cacheDir).find((n) => n.endsWith('.bin'))!);
    const garbage = Buffer.alloc(4096, 7);
    fs.writeFileSync(file, garbage);

    svc = await startService({ dir: state, config: { mcpServers: { only: server('only') } }, args });
    assert.is((await svc.waitForLog(loaded('only'))).codeCache, 'rejected');
    await svc.waitForLog((l) => l.msg === 'backend code cache kept for the next workers' && l.backend === 'only');
    await svc.waitFor(async () => fs.existsSync(file) && !fs.readFileSync(file).equals(garbage), 'the file on disk made again');
    await svc.stop();

    svc = await startService({ dir: state, config: { mcpServers: { only: server('only') } }, args });
    assert.is((await svc.waitForLog(loaded('only'))).codeCache, 'accepted');
  } finally {
    await svc?.stop();
    svc = null;
    fs.rmSync(state, { recursive: true, force: true });
  }
});

E.run();
