// Answers the main thread holds for clients that do not read: capped in total, largest cut first.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import { answersToCut, HeldAnswers, type HeldCut } from '../../lib/main/held-answers.ts';

test('held answers :: the largest are cut first until the total is under the cap', () => {
  const table: [number[], number, number[]][] = [
    [[10, 20, 30], 60, []],
    [[10, 20, 30], 59, [2]],
    [[10, 20, 30], 25, [2, 1]],
    [[10, 20, 30], 30, [2]],
    [[10, 20, 30], 9, [2, 1, 0]],
    [[5, 40, 40], 20, [1, 2]],
    [[], 0, []],
  ];
  for (const [pending, cap, cut] of table) assert.equal(answersToCut(pending, cap), cut, `${pending} over ${cap}`);
});

// Real sockets: three clients ask for 16 MiB and never read; one reads everything.
test('held answers :: clients that do not read are cut past the cap; a client that reads gets its whole answer', async () => {
  const MB = 1024 * 1024;
  const cuts: HeldCut[] = [];
  const held = new HeldAnswers(16 * MB, (cut) => void cuts.push(cut), 50);
  const body = Buffer.alloc(16 * MB, 'x');
  const server = http.createServer((_req, res) => {
    res.end(body);
    held.wrote(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const stalled: net.Socket[] = [];
  for (let i = 0; i < 3; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    socket.write(`GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`);
    stalled.push(socket);
  }
  const reader = new Promise<number>((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', path: '/reader' }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
  });
  try {
    assert.is(await reader, 16 * MB, 'the reading client is not cut');
    const deadline = Date.now() + 5_000;
    while (cuts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(cuts.length >= 1, 'at least one stalled answer was cut');
    assert.ok(cuts.every((c) => c.held > 16 * MB && c.bytes > 0), JSON.stringify(cuts));
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(held.bytes <= 16 * MB, `${held.bytes} bytes still held`);
  } finally {
    for (const socket of stalled) socket.destroy();
    server.close();
  }
});

test.run();
