// What a preflight is told a route takes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowedMethods } from '../../lib/main/cors.ts';

test('cors :: MCP routes take GET, POST and DELETE; health and the REST views GET and HEAD', () => {
  const table: [string | undefined, string][] = [
    ['/mcp', 'GET, POST, DELETE'],
    ['/mcp?tags=a', 'GET, POST, DELETE'],
    ['/sse', 'GET, POST, DELETE'],
    ['/messages?sessionId=h0-x', 'GET, POST, DELETE'],
    ['/api/v1/servers', 'GET, HEAD'],
    ['/health', 'GET, HEAD'],
    ['/mcpx', 'GET, HEAD'],
    [undefined, 'GET, HEAD'],
  ];
  for (const [url, methods] of table) assert.is(allowedMethods(url), methods, String(url));
});

test.run();
