// How a failed start is worded, from the errors a real spawn gives: spawn says ENOENT both for a
// missing command and for a missing working directory, and the message must tell which.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeStartFailure } from '../../lib/backend/describe.ts';
import type { StdioSpec } from '../../lib/config/types.ts';

const spawnError = (command: string, cwd?: string) =>
  new Promise<Error>((resolve, reject) => {
    let child;
    try {
      child = spawn(command, [], { cwd, stdio: 'ignore' });
    } catch (error) {
      return resolve(error as Error); // a working directory that is a file fails at once
    }
    child.once('error', resolve);
    child.once('spawn', () => {
      child.kill();
      reject(new Error(`${command} started`));
    });
  });
const spec = (command: string, cwd?: string) => ({ type: 'stdio', command, args: [], cwd }) as unknown as StdioSpec;

test('describe :: a missing command, a missing working directory, a working directory that is a file', async () => {
  const missingDir = path.join(os.tmpdir(), `agent-no-such-dir-${process.pid}`);
  assert.is(describeStartFailure(spec('/no/such/command'), await spawnError('/no/such/command')), 'failed to start: command not found: /no/such/command (ENOENT)');
  assert.is(describeStartFailure(spec(process.execPath, missingDir), await spawnError(process.execPath, missingDir)), `failed to start: working directory not usable: ${missingDir}`);
  const file = path.join(os.tmpdir(), `agent-a-file-${process.pid}`);
  fs.writeFileSync(file, '');
  try {
    assert.is(describeStartFailure(spec(process.execPath, file), await spawnError(process.execPath, file)), `failed to start: working directory not usable: ${file}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
  // The directory exists: the command is what is missing.
  assert.is(describeStartFailure(spec('/no/such/command', os.tmpdir()), await spawnError('/no/such/command', os.tmpdir())), 'failed to start: command not found: /no/such/command (ENOENT)');
});

test.run();
