// stdio mode's main-thread end: real streams and a real MessageChannel, the test playing hub 0.
// What stdin's end, the hub's "done", the drain deadline, a hub that dies and a closed stdout do.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough, Writable } from 'node:stream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { PumpClient } from '../../lib/main/pump-client.ts';
import { StdioBridge } from '../../lib/main/stdio-bridge.ts';
import type { PumpToHub, PumpToMain } from '../../lib/shared/messages/pump.ts';

function setup(stdout: Writable = new PassThrough(), maxLineBytes?: number) {
  const { port1, port2 } = new MessageChannel();
  const pump = new PumpClient(port1 as MessagePort, { maxBodyBytes: 1024 });
  const hub: PumpToHub[] = [];
  port2.on('message', (m: PumpToHub) => hub.push(m));
  const send = (m: PumpToMain) => port2.postMessage(m);
  const stdin = new PassThrough();
  const ends: string[] = [];
  // The drain deadline is a timer the test fires, on a clock the test moves.
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
  const clock = { now: 1_000, allowance: 65_000 };
  const clean: boolean[] = [];
  const dropped: number[] = [];
  const bridge = new StdioBridge((reason, wasClean) => void (ends.push(reason), clean.push(wasClean)), {
    drainUntil: (endedAt) => endedAt + clock.allowance,
    onDropped: (bytes) => void dropped.push(bytes),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
    now: () => clock.now,
    streams: { stdin, stdout },
    timers: {
      setTimeout: (fn, ms) => {
        const timer = { fn, ms, cleared: false };
        timers.push(timer);
        return timer;
      },
      clearTimeout: (timer) => void ((timer as { cleared: boolean }).cleared = true),
    },
  });
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const close = () => {
    port1.close();
    port2.close();
  };
  // Another hub 0, after the first died: its messages, and its end of the pump.
  const nextHub = () => {
    const channel = new MessageChannel();
    const received: PumpToHub[] = [];
    channel.port2.on('message', (m: PumpToHub) => received.push(m));
    const pump = new PumpClient(channel.port1 as MessagePort, { maxBodyBytes: 1024 });
    const credit = (bytes: number) => channel.port2.postMessage({ type: 'stdinCredit', bytes } satisfies PumpToMain);
    const stdinText = () => received.flatMap((m) => (m.type === 'stdin' ? [Buffer.from(m.chunk).toString()] : [])).join('');
    return { pump, received, credit, stdinText, close: () => (channel.port1.close(), channel.port2.close()) };
  };
  // The hub 0 attached dies, and the next one is up.
  const replaceHub = () => {
    bridge.detach();
    const next = nextHub();
    bridge.attach(next.pump);
    return next;
  };
  return { pump, bridge, hub, send, stdin, stdout, ends, clean, dropped, timers, clock, until, close, nextHub, replaceHub };
}

test('stdio bridge :: stdin\'s end is passed on; the service ends once the hub has sent its last answer and stdout took it', async () => {
  const stdout = new PassThrough();
  const t = setup(stdout);
  let out = '';
  stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  t.bridge.attach(t.pump);
  t.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await t.until(() => t.hub.some((m) => m.type === 'stdinEnd'), 'stdinEnd');
  assert.equal(t.timers.map((x) => x.ms), [65_000], 'the drain deadline is set');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(t.ends, [], 'not while an answer is owed');
  t.send({ type: 'stdout', chunk: new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n') });
  t.send({ type: 'stdoutEnd' });
  await t.until(() => t.ends.length > 0, 'the end');
  assert.equal(t.ends, ['stdin closed']);
  assert.equal(t.clean, [true], 'nothing lost: the service exits 0');
  assert.is(out, '{"jsonrpc":"2.0","id":1,"result":{}}\n', 'the answer was written first');
  assert.ok(t.timers[0]!.cleared, 'the deadline is cleared');
  t.close();
});

test('stdio bridge :: answers still owed at the deadline are given up, and the reason says so', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.end();
  await t.until(() => t.timers.length === 1, 'the deadline');
  t.clock.now += 65_000;
  t.timers[0]!.fn();
  assert.equal(t.ends, ['stdin closed; answers still owed 65000 ms later were not sent']);
  assert.equal(t.clean, [false], 'answers lost: the service exits 1');
  t.send({ type: 'stdoutEnd' });
  await new Promise((r) => setTimeout(r, 30));
  assert.is(t.ends.length, 1, 'ends once');
  t.close();
});

test('stdio bridge :: the deadline is asked again when it comes: one that grew meanwhile (the configuration loaded) is waited for', async () => {
  const t = setup();
  t.clock.allowance = 5_000;
  t.bridge.attach(t.pump);
  t.stdin.end();
  await t.until(() => t.timers.length === 1, 'the deadline');
  assert.is(t.timers[0]!.ms, 5_000);
  t.clock.allowance = 65_000;
  t.clock.now += 5_000;
  t.timers[0]!.fn();
  assert.equal(t.ends, [], 'not yet');
  assert.is(t.timers[1]!.ms, 60_000, 'the rest of the longer deadline');
  t.clock.now += 60_000;
  t.timers[1]!.fn();
  assert.equal(t.ends, ['stdin closed; answers still owed 65000 ms later were not sent']);
  t.close();
});

test('stdio bridge :: a deadline past what a timer can hold waits in steps (Node fires longer timers at once)', async () => {
  const t = setup();
  t.clock.allowance = 2 ** 31 + 60_000;
  t.bridge.attach(t.pump);
  t.stdin.end();
  await t.until(() => t.timers.length === 1, 'the deadline');
  assert.is(t.timers[0]!.ms, 2 ** 31 - 1);
  t.close();
});

test('stdio bridge :: stdin written and ended before hub 0 is up reaches it, its end after its bytes, when it comes', async () => {
  const t = setup();
  t.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(t.hub, [], 'nothing sent without a hub');
  t.bridge.attach(t.pump);
  await t.until(() => t.hub.some((m) => m.type === 'stdinEnd'), 'stdinEnd');
  assert.equal(t.hub.map((m) => m.type), ['stdin', 'stdinEnd']);
  assert.equal(t.ends, []);
  t.close();
});

test("stdio bridge :: hub 0 stopping fails the requests it owed with the error lines it left; stdin waits for the next hub", async () => {
  const stdout = new PassThrough();
  const t = setup(stdout);
  let out = '';
  stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  t.bridge.attach(t.pump);
  t.send({ type: 'stdioOwed', add: [7, 'x', 8], remove: [] });
  t.send({ type: 'stdioOwed', add: [], remove: [8] });
  await t.until(() => t.pump.stdioOwed.size === 2, 'the ids owed');
  t.bridge.detach();
  await t.until(() => out.split('\n').length === 3, 'stdout');
  const lines = out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => l.id), [7, 'x']);
  assert.equal(lines[0].error.code, -32603);
  assert.match(lines[0].error.message, /stopped before it answered/);
  assert.equal(lines[0].error.data, { code: 'hub_failed' }, 'the catalogue code, as every error the service writes');
  assert.equal(t.ends, [], 'stdin still open: the service goes on');
  t.close();
});

test("stdio bridge :: the client's initialize line, as the hub read it, goes first to the hub that replaces it, before any stdin byte", async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  const line = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
  t.send({ type: 'stdioInitialize', line });
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(t.hub.some((m) => m.type === 'stdioReplay'), 'not to the hub that read it');
  t.bridge.detach();
  t.stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await new Promise((r) => setTimeout(r, 20));
  const { port1, port2 } = new MessageChannel();
  const next: PumpToHub[] = [];
  port2.on('message', (m: PumpToHub) => next.push(m));
  t.bridge.attach(new PumpClient(port1 as MessagePort, { maxBodyBytes: 1024 }));
  await t.until(() => next.length >= 2, 'the replay and the held stdin');
  assert.equal(next.map((m) => m.type), ['stdioReplay', 'stdin']);
  assert.is(Buffer.from((next[0] as { line: Uint8Array }).line).toString(), Buffer.from(line).toString());
  port1.close();
  port2.close();
  t.close();
});

test('stdio bridge :: a stdin that ends before any hub is up is seen to end: its deadline runs, and without a hub the service ends, answers lost', async () => {
  const t = setup();
  t.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await t.until(() => t.timers.length === 1, 'the drain deadline, with no hub attached');
  t.clock.now += t.clock.allowance + 1;
  t.timers[0]!.fn();
  assert.equal(t.clean, [false], 'the request read was never answered: exit 1');
  assert.match(t.ends[0]!, /^stdin closed; answers still owed \d+ ms later were not sent$/);
  t.close();
});

test('stdio bridge :: bytes read before hub 0 is up wait for it, then its end follows them', async () => {
  const t = setup();
  t.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await t.until(() => t.timers.length === 1, 'the end seen');
  t.bridge.attach(t.pump);
  await t.until(() => t.hub.some((m) => m.type === 'stdinEnd'), 'the end passed on');
  assert.equal(t.hub.map((m) => m.type), ['stdin', 'stdinEnd']);
  t.close();
});

test('stdio bridge :: hub 0 stopping after stdin ended ends the service: what it owed went with it', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.end();
  await t.until(() => t.timers.length === 1, 'the deadline');
  t.bridge.detach();
  assert.equal(t.ends, ['stdin closed; the MCP hub stopped before it had answered']);
  t.close();
});

test('stdio bridge :: a stdout the client closed (EPIPE) ends the service; later output is dropped and still acknowledged', async () => {
  const broken = new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  const t = setup(broken);
  t.bridge.attach(t.pump);
  t.send({ type: 'stdout', chunk: new TextEncoder().encode('one\n') });
  await t.until(() => t.ends.length > 0, 'the end');
  assert.equal(t.ends, ['stdout closed by the client (EPIPE)']);
  assert.equal(t.clean, [false], 'answers could not be written: exit 1');
  t.send({ type: 'stdout', chunk: new TextEncoder().encode('two\n') });
  await t.until(() => t.hub.filter((m) => m.type === 'stdoutCredit').length === 2, 'both acknowledged');
  t.close();
});

test('stdio bridge :: flushed() waits for stdout to take what it holds, or for its bound; it leaves no listener either way', async () => {
  // A stdout whose reader takes a write only when the test says so.
  const pending: (() => void)[] = [];
  const slow = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, callback) => void pending.push(callback) });
  const t = setup(slow);
  t.bridge.attach(t.pump);
  let resolved = false;
  await t.bridge.flushed(2_000).then(() => (resolved = true));
  assert.ok(resolved, 'nothing held: at once');
  slow.write('held\n');
  let flushed = false;
  const first = t.bridge.flushed(2_000).then(() => (flushed = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.not.ok(flushed, 'waits while stdout holds bytes');
  pending.shift()!();
  await first;
  assert.ok(t.timers.at(-1)!.cleared, 'its bound is cleared');
  slow.write('held again\n');
  const second = t.bridge.flushed(2_000);
  t.timers.at(-1)!.fn(); // the bound passes: a reader that stopped reading
  await second;
  assert.is(slow.listenerCount('drain'), 0);
  t.close();
});

const stdinOf = (messages: PumpToHub[]) => messages.flatMap((m) => (m.type === 'stdin' ? [Buffer.from(m.chunk).toString()] : [])).join('');

test('stdio bridge :: the lines a hub that died had taken and not read go to the next hub, before newer stdin; the lines it read do not', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.write('{"id":1}\n');
  await t.until(() => stdinOf(t.hub) === '{"id":1}\n', 'the first line at the hub');
  t.send({ type: 'stdinCredit', bytes: 9 });
  t.stdin.write('{"id":2}\n');
  await t.until(() => stdinOf(t.hub) === '{"id":1}\n{"id":2}\n', 'the second line at the hub');
  await new Promise((r) => setTimeout(r, 20));
  t.bridge.detach();
  t.stdin.write('{"id":3}\n');
  await new Promise((r) => setTimeout(r, 20));
  const next = t.nextHub();
  t.bridge.attach(next.pump);
  await t.until(() => next.stdinText().length >= 18, 'stdin at the next hub');
  assert.is(next.stdinText(), '{"id":2}\n{"id":3}\n', 'the unread line first, then the newer one; the line read is not sent again');
  assert.equal(t.dropped, []);
  next.close();
  t.close();
});

test('stdio bridge :: lines two hubs in a row died without reading are dropped, and the service says how many bytes', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.write('{"kill":1}\n');
  await t.until(() => stdinOf(t.hub).length > 0, 'the line at the hub');
  const second = t.replaceHub();
  await t.until(() => second.stdinText() === '{"kill":1}\n', 'the line sent again, once');
  const third = t.replaceHub();
  t.stdin.write('{"id":4}\n');
  await t.until(() => third.stdinText().length > 0, 'stdin at the third hub');
  assert.is(third.stdinText(), '{"id":4}\n', 'not a third time');
  assert.equal(t.dropped, [11]);
  for (const hub of [second, third]) hub.close();
  t.close();
});

test("stdio bridge :: a line's start waits on the main thread for its end: a hub is only ever sent whole lines", async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.write('{"jsonrpc":"2.0",');
  await new Promise((r) => setTimeout(r, 30));
  assert.is(stdinOf(t.hub), '', 'nothing of an unfinished line');
  t.stdin.write('"id":1}\n{"id"');
  await t.until(() => stdinOf(t.hub).length > 0, 'the line once whole');
  assert.is(stdinOf(t.hub), '{"jsonrpc":"2.0","id":1}\n');
  t.stdin.end(':2}');
  await t.until(() => t.hub.some((m) => m.type === 'stdinEnd'), 'the end');
  assert.is(stdinOf(t.hub), '{"jsonrpc":"2.0","id":1}\n{"id":2}', 'the last line without its newline goes at the end, before stdinEnd');
  t.close();
});

test('stdio bridge :: a hub that dies before it is up had nothing of a long line: the line goes whole to the next hub, and the line after it apart', async () => {
  const t = setup(new PassThrough(), 20);
  t.bridge.detach();
  t.stdin.write(`{"id":1,"x":"${'a'.repeat(30)}`);
  await new Promise((r) => setTimeout(r, 20));
  t.bridge.detach();
  t.stdin.write('bbb"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await new Promise((r) => setTimeout(r, 20));
  const next = t.nextHub();
  t.bridge.attach(next.pump);
  await t.until(() => next.stdinText().endsWith('"ping"}\n'), 'stdin at the hub');
  assert.is(next.stdinText(), `{"id":1,"x":"${'a'.repeat(30)}bbb"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
  assert.equal(t.dropped, []);
  next.close();
  t.close();
});

test('stdio bridge :: a hub that dies after EOF with lines it had not read: the next hub gets them, then the end; the service does not end meanwhile', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.end('{"id":1}\n');
  await t.until(() => t.hub.some((m) => m.type === 'stdinEnd'), 'the end at the hub');
  t.bridge.detach();
  assert.equal(t.ends, [], 'a line waits for the next hub');
  const next = t.nextHub();
  t.bridge.attach(next.pump);
  await t.until(() => next.received.some((m) => m.type === 'stdinEnd'), 'the end at the next hub');
  assert.equal(next.received.map((m) => m.type), ['stdin', 'stdinEnd']);
  assert.is(next.stdinText(), '{"id":1}\n');
  next.close();
  t.close();
});

test('stdio bridge :: after EOF, a hub that died owing a request: the next hub answers the lines it had not read, and the end is not clean', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.end('{"id":1}\n{"id":2}\n');
  await t.until(() => t.hub.some((m) => m.type === 'stdinEnd'), 'the end at the hub');
  t.send({ type: 'stdioOwed', add: [1], remove: [] });
  await t.until(() => t.pump.stdioOwed.size === 1, 'id 1 owed');
  const next = t.replaceHub();
  await t.until(() => next.received.some((m) => m.type === 'stdinEnd'), 'the end at the next hub');
  next.pump.onStdoutEnd?.();
  await t.until(() => t.ends.length > 0, 'the end');
  assert.equal(t.clean, [false], 'request 1 got an error line, not its answer: exit 1');
  assert.match(t.ends[0]!, /an MCP hub stopped before it had answered every request/);
  next.close();
  t.close();
});

test('stdio bridge :: after EOF, lines waiting for a next hub that never comes: the drain deadline still ends the service', async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.end('{"id":1}\n');
  await t.until(() => t.timers.length === 1, 'the drain deadline');
  t.bridge.detach();
  assert.equal(t.ends, [], 'waiting for the next hub');
  t.clock.now += t.clock.allowance + 1;
  t.timers[0]!.fn();
  assert.equal(t.clean, [false]);
  t.close();
});

test("stdio bridge :: an acknowledgement from a dead hub's port counts for nothing at the next hub", async () => {
  const t = setup();
  t.bridge.attach(t.pump);
  t.stdin.write('{"id":1}\n');
  await t.until(() => stdinOf(t.hub).length > 0, 'the line at the first hub');
  const second = t.replaceHub();
  await t.until(() => second.stdinText() === '{"id":1}\n', 'the line at the second hub');
  // The first hub's port acknowledges 9 bytes late: if the second hub's unread line were let go, nothing would be dropped below.
  t.send({ type: 'stdinCredit', bytes: 9 });
  await new Promise((r) => setTimeout(r, 20));
  t.bridge.detach();
  assert.equal(t.dropped, [9], 'the line, unread by the second hub too, is dropped: the stale acknowledgement was ignored');
  second.close();
  t.close();
});

test.run();
