// The orphan sweep against real processes: a recorded backend whose service is dead (exited, or
// a zombie its parent has not reaped yet) is ended; one whose service lives is left alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { endOrphans } from '../../lib/main/orphans.ts';
import { procStartTime, readChildRecords, recordChild } from '../../lib/shared/child-records.ts';
import { readProcStat } from '../../lib/shared/proc-stat.ts';
import { isAlive } from '../helpers/processes.ts';
import { poll, tempDir } from '../helpers/service.ts';

const log = () => {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  return { lines, warn: at('warn'), info: at('info') } as never as { lines: typeof lines; warn: () => void; info: () => void };
};

// A "backend": a sleeper leading its own process group, as a backend's child does.
function backend(): ChildProcess {
  return spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
}

// A zombie: `sh` starts a short `sleep` in the background, prints its pid, then becomes a long `sleep`, which never reaps it.
async function zombie(): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d) => resolve(String(d).trim()))));
  await poll(async () => readProcStat(pid)?.state === 'Z', 'the zombie');
  return { pid, parent };
}

const record = (dir: string, pid: number, servicePid: number) =>
  recordChild(dir, { pid, startTime: procStartTime(pid)!, backend: `b${pid}`, servicePid, command: 'sleep 60', recordedAt: new Date().toISOString() });

test('orphans :: a backend of a zombie service is ended; one of a live service is not', async () => {
  const dir = tempDir();
  const orphan = backend();
  const owned = backend();
  const dead = await zombie();
  const liveService = spawn('sleep', ['60'], { stdio: 'ignore' });
  try {
    record(dir, orphan.pid!, dead.pid);
    record(dir, owned.pid!, liveService.pid!);
    const logger = log();
    assert.is(endOrphans(dir, logger as never), 1);
    await poll(async () => !isAlive(orphan.pid!), 'the orphan gone');
    assert.ok(isAlive(owned.pid!), "a live service's backend runs on");
    assert.equal(readChildRecords(dir).records.map((r) => r.pid), [owned.pid], 'the ended one is forgotten');
    const line = logger.lines.find((l) => l.level === 'warn')!;
    assert.is(line.fields.pid, orphan.pid);
    assert.is(line.fields.deadService, dead.pid);
    assert.match(line.msg, `left by a service that did not shut down (pid ${dead.pid})`);
  } finally {
    for (const child of [orphan, owned, dead.parent, liveService]) child.kill('SIGKILL');
  }
});

test.run();
