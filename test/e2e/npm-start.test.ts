// End to end: the README's run command. SIGTERM or SIGINT to `npm start` (what a process
// manager, a container runtime or Ctrl-C sends) stops the service and every backend, and the
// tracked example configuration is never the one the service works on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { descendants, isAlive } from '../helpers/processes.ts';
import { poll, ROOT, tempDir } from '../helpers/service.ts';

const T = suite('e2e npm start');

// `group`: the signal goes to npm's whole process group, as a terminal's Ctrl-C does (npm then
// passes its copy on to the service, which the terminal signalled already).
async function runAndSignal(signal: NodeJS.Signals, group = false): Promise<void> {
  const dir = tempDir('agent-npm-start-');
  const config = path.join(dir, 'mcp.json');
  const example = fs.readFileSync(path.join(ROOT, 'examples/mcp.json'), 'utf8');
  const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--health-rate-limit', '0'], {
    cwd: ROOT,
    env: { ...process.env, AGENT_START_CONFIG: config },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: group,
  });
  let err = '';
  npm.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  try {
    const port = await poll(async () => Number(/"port":(\d+)/.exec(err)?.[1]) || undefined, 'the service listening', 30_000);
    await poll(async () => ((await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { status: string }).status === 'healthy', 'the example backends connected', 30_000);
    assert.equal(fs.readFileSync(config, 'utf8'), example, 'the working copy was seeded from the example');
    const tree = descendants(npm.pid!);
    assert.ok(tree.length >= 3, `the service and its backends run below npm (${tree.length})`);
    const started = Date.now();
    if (group) process.kill(-npm.pid!, signal);
    else npm.kill(signal);
    assert.is(await exited, 0, err);
    const survivors = await poll(async () => (tree.every((pid) => !isAlive(pid)) ? [] : undefined), 'every process gone', 12_000).catch(() => tree.filter(isAlive));
    assert.equal(survivors, [], `nothing outlives ${signal} to npm start`);
    assert.ok(Date.now() - started < 11_000, 'within the shutdown budget');
    assert.match(err, new RegExp(`"reason":"${signal}"`), 'the service itself got the signal');
    assert.match(err, /"exitCode":0,"msg":"stopped"/, 'the graceful stop, not the second signal\'s');
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(fs.readFileSync(path.join(ROOT, 'examples/mcp.json'), 'utf8'), example, 'the tracked example is untouched');
}

T('npm start :: SIGTERM stops the service and every backend', () => runAndSignal('SIGTERM'));
T('npm start :: SIGINT stops the service and every backend', () => runAndSignal('SIGINT'));
T("npm start :: Ctrl-C (SIGINT to npm's whole group: the service gets it twice) is one signal: the graceful stop, exit 0", () => runAndSignal('SIGINT', true));

T.run();
