// Targets in absolute form (RFC 9112 §3.2.2, what a proxy sends) are routed by their path and query.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { originForm } from '../../lib/main/app.ts';

test('origin form :: absolute-form targets become their path and query; others are left as they are', () => {
  const table: [string, string][] = [
    ['http://127.0.0.1:3050/health', '/health'],
    ['HTTP://example.test/health/ready?x=1', '/health/ready?x=1'],
    ['https://user@h:1/health/mcp/a%20b', '/health/mcp/a%20b'],
    ['http://h:3050', '/'],
    ['http://h?x=1', '/?x=1'],
    ['/health', '/health'],
    ['*', '*'],
    ['example.test:443', 'example.test:443'],
  ];
  for (const [target, expected] of table) assert.is(originForm(target), expected, target);
});

test.run();
