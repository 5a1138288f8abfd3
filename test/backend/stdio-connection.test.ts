import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StderrCapture } from '../../lib/backend/stderr-capture.ts';
import { connectStdio } from '../../lib/backend/stdio-connection.ts';
import { backendFixture, stdioSpec } from './helpers/runner-harness.ts';

test('stdio connection :: once the child is gone, no listener of ours is left on its streams', async () => {
  const capture = new StderrCapture({ emit: () => undefined });
  const { child, transport } = connectStdio(stdioSpec('streams', [backendFixture('writes-stderr-at-start.mjs'), '3']), {
    maxMessageBytes: 1024 * 1024,
    stateDir: null,
    capture: () => capture,
    log: pino({ level: 'silent' }),
  });
  try {
    await transport.start();
    const ours = () => ({
      stdout: child.stdout.listenerCount('data') + child.stdout.listenerCount('error'),
      stderr: child.stderr!.listenerCount('data'),
      stdin: child.stdin.listenerCount('error'),
    });
    const wired = ours();
    assert.ok(wired.stdout > 0 && wired.stderr > 0 && wired.stdin > 0, JSON.stringify(wired));
    await child.stop(500);
    // execa keeps listeners of its own on other events; these were only ours.
    assert.equal(ours(), { stdout: 0, stderr: 0, stdin: 0 });
  } finally {
    await child.stop(500);
    capture.close();
  }
});

test.run();
