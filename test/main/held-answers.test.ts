// Answers the main thread holds for clients that do not read: capped in total, the largest stalled
// ones cut first; a client that reads is never cut for it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import { answersToCut, HeldAnswers, type HeldCut, isStalled } from '../../lib/main/held-answers.ts';

test('held answers :: of the stalled answers, the largest are cut first until the total is under the cap', () => {
  const all = [true, true, true];
  const table: [number[], boolean[], number, number[]][] = [
    [[10, 20, 30], all, 60, []],
    [[10, 20, 30], all, 59, [2]],
    [[10, 20, 30], all, 30, [2]],
    [[10, 20, 30], all, 25, [2, 1]],
    [[10, 20, 30], all, 9, [2, 1, 0]],
    // Found by a re-check: a client reading its answer was cut because it was a few bytes larger.
    [[10, 20, 31], [true, true, false], 25, [1, 0]],
    [[10, 20, 31], [false, false, false], 0, []],
    [[], [], 0, []],
  ];
  for (const [pending, stalled, cap, cut] of table) assert.equal(answersToCut(pending, stalled, cap), cut, `${pending} ${stalled} over ${cap}`);
});

test('held answers :: stalled means no byte taken since the last look, by node or by libuv', () => {
  const table: [[number, number], [number, number], boolean][] = [
    [[100, 50], [100, 50], true],
    [[100, 50], [100, 40], false],
    [[100, 50], [90, 50], false],
    [[Infinity, Infinity], [100, 50], false],
    [[100, Infinity], [100, Infinity], true],
  ];
  for (const [[p0, q0], [p1, q1], stalled] of table) assert.is(isStalled({ pending: p0, queued: q0 }, { pending: p1, queued: q1 }), stalled, `${p0},${q0} -> ${p1},${q1}`);
});

// Real sockets: three clients ask for 8 MiB and never read; one reads steadily, slowly; one reads at once.
test('held answers :: stalled clients are cut past the cap; clients that read get their whole answer', async () => {
  const MB = 1024 * 1024;
  const cuts: HeldCut[] = [];
  const held = new HeldAnswers(8 * MB, (cut) => void cuts.push(cut), 100, 5);
  const body = Buffer.alloc(8 * MB, 'x');
  const server = http.createServer((req, res) => {
    // One write of the whole answer, as the pump writes a one-piece answer.
    res.end(body);
    held.wrote(res);
    void req;
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
  await new Promise((r) => setTimeout(r, 100));
  const read = (path: string, slow: boolean) =>
    new Promise<number>((resolve, reject) => {
      http.get({ port, host: '127.0.0.1', path }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          // About 4 MB/s: two seconds for the answer, several looks while it reads.
          if (slow) {
            res.pause();
            setTimeout(() => res.resume(), (chunk.length / (4 * MB)) * 1000);
          }
        });
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      });
    });
  try {
    const [slowly, quickly] = await Promise.all([read('/slow', true), read('/fast', false)]);
    assert.is(slowly, 8 * MB, 'the slow but steady reader is not cut');
    assert.is(quickly, 8 * MB, 'the quick reader is not cut');
    assert.ok(cuts.length >= 1, 'at least one stalled answer was cut');
    assert.ok(cuts.every((c) => c.held > 8 * MB && c.bytes > 0), JSON.stringify(cuts));
  } finally {
    for (const socket of stalled) socket.destroy();
    server.close();
  }
});

test.run();
