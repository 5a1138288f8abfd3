import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../lib/shared/logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('debug', 'json', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { log, lines };
}

test('logger :: credentials never reach the log, in fields, nested fields or the message; paths stay', () => {
  const { log, lines } = capture();
  log.info({ err: 'connect https://u:p@db.internal/x failed token=abc', nested: { header: 'Authorization: Bearer zzz' }, count: 3 }, 'open /etc/agent/mcp.json with password=hunter2');
  log.warn('ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected');
  assert.equal(lines.map(({ time: _t, ...rest }) => rest), [
    { level: 30, err: 'connect https://[REDACTED]@db.internal/x failed token=[REDACTED]', nested: { header: 'Authorization: [REDACTED]' }, count: 3, msg: 'open /etc/agent/mcp.json with password=[REDACTED]' },
    { level: 40, msg: '[REDACTED] rejected' },
  ]);
});

test('logger :: long captured lines keep their length (up to 16 KiB)', () => {
  const { log, lines } = capture();
  log.info({ stream: 'stderr' }, 'x'.repeat(8192));
  assert.is((lines[0]!.msg as string).length, 8192);
});

test.run();
