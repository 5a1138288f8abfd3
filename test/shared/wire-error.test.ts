// An error as it crosses threads: a failed fetch says why (its cause), as a remote backend's lastError.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { toWireError } from '../../lib/shared/messages/state-events.ts';

test('wire error :: a fetch refused by a closed port names the refusal', async () => {
  // A port that was just free: nothing listens there.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const error = await fetch(`http://127.0.0.1:${port}/mcp`).then(() => null, (e: unknown) => e);
  const wire = toWireError(error);
  assert.is(wire.name, 'TypeError');
  assert.match(wire.message, new RegExp(`^fetch failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`));
});

test('wire error :: wrapped, as the SDK wraps it, the refusal is still named', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const fetchFailed = new TypeError('fetch failed', { cause: refused });
  const wrapped = new Error('Version negotiation probe failed: fetch failed', { cause: fetchFailed });
  assert.is(toWireError(wrapped).message, 'Version negotiation probe failed: fetch failed: connect ECONNREFUSED 127.0.0.1:9');
  const bare = new TypeError('fetch failed', { cause: Object.assign(new Error(''), { code: 'UND_ERR_SOCKET' }) });
  assert.is(toWireError(bare).message, 'fetch failed: UND_ERR_SOCKET');
});

test('wire error :: other errors keep their message and code', () => {
  const error = Object.assign(new Error('spawn x ENOENT', { cause: new Error('inner') }), { code: 'ENOENT' });
  assert.equal(toWireError(error), { name: 'Error', message: 'spawn x ENOENT', code: 'ENOENT' });
  assert.equal(toWireError('text'), { name: 'Error', message: 'text' });
});

test.run();
