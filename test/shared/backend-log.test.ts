// A backend's log message in the service log: at its own severity, its MCP level beside pino's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backendLogFields, serviceLevel } from '../../lib/shared/backend-log.ts';

test('backend log :: the eight MCP levels and anything else map to the service log\'s', () => {
  const table: [unknown, string][] = [
    ['debug', 'debug'],
    ['info', 'info'],
    ['notice', 'info'],
    ['warning', 'warn'],
    ['error', 'error'],
    ['critical', 'error'],
    ['alert', 'error'],
    ['emergency', 'error'],
    ['loud', 'info'],
    [undefined, 'info'],
  ];
  for (const [mcp, service] of table) assert.is(serviceLevel(mcp), service, String(mcp));
});

test('backend log :: the fields never carry a second `level`', () => {
  const fields = backendLogFields({ level: 'error', logger: 'db', data: { x: 1 } });
  assert.equal(fields, { mcpLevel: 'error', logger: 'db', data: { x: 1 } });
  assert.not.ok('level' in fields);
});

test.run();
