import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { askStart, endStart, newStartGate, setLimit, type StartGate } from '../../lib/main/start-gate.ts';
import { StartQueue } from '../../lib/main/start-queue.ts';

type Step = ['ask' | 'end', string] | ['limit', number];
type Case = [name: string, limit: number, steps: Step[], begun: string[][], final: { running: string[]; waiting: string[] }];

const cases: Case[] = [
  ['limit 2: the first two begin, the third waits', 2, [['ask', 'a'], ['ask', 'b'], ['ask', 'c']], [['a'], ['b'], []], { running: ['a', 'b'], waiting: ['c'] }],
  ['an ended start lets the next one in, in order', 2, [['ask', 'a'], ['ask', 'b'], ['ask', 'c'], ['ask', 'd'], ['end', 'b']], [['a'], ['b'], [], [], ['c']], { running: ['a', 'c'], waiting: ['d'] }],
  ['limit 1: one at a time', 1, [['ask', 'a'], ['ask', 'b'], ['end', 'a'], ['end', 'b']], [['a'], [], ['b'], []], { running: [], waiting: [] }],
  ['limit 0: no limit', 0, [['ask', 'a'], ['ask', 'b'], ['ask', 'c']], [['a'], ['b'], ['c']], { running: ['a', 'b', 'c'], waiting: [] }],
  ['asking twice changes nothing', 1, [['ask', 'a'], ['ask', 'a'], ['ask', 'b'], ['ask', 'b']], [['a'], [], [], []], { running: ['a'], waiting: ['b'] }],
  ['a start no longer wanted leaves the line without beginning', 1, [['ask', 'a'], ['ask', 'b'], ['ask', 'c'], ['end', 'b'], ['end', 'a']], [['a'], [], [], [], ['c']], { running: ['c'], waiting: [] }],
  ['ending an unknown start changes nothing', 1, [['ask', 'a'], ['end', 'x']], [['a'], []], { running: ['a'], waiting: [] }],
  ['a larger limit lets the waiting begin', 1, [['ask', 'a'], ['ask', 'b'], ['ask', 'c'], ['limit', 3]], [['a'], [], [], ['b', 'c']], { running: ['a', 'b', 'c'], waiting: [] }],
  ['a smaller limit stops nobody', 3, [['ask', 'a'], ['ask', 'b'], ['limit', 1], ['ask', 'c'], ['end', 'a'], ['end', 'b']], [['a'], ['b'], [], [], [], ['c']], { running: ['c'], waiting: [] }],
];

for (const [name, limit, steps, begun, final] of cases) {
  test(`start gate :: ${name}`, () => {
    let gate: StartGate = newStartGate(limit);
    const seen: string[][] = [];
    for (const step of steps) {
      const next = step[0] === 'limit' ? setLimit(gate, step[1]) : step[0] === 'ask' ? askStart(gate, step[1]) : endStart(gate, step[1]);
      seen.push(next.begin);
      gate = next.gate;
    }
    assert.equal(seen, begun);
    assert.equal({ running: [...gate.running], waiting: [...gate.waiting] }, final);
  });
}

// A schedule the test turns by hand: one queued callback per turn.
function manual() {
  const queue: (() => void)[] = [];
  return { schedule: (run: () => void) => void queue.push(run), turn: () => queue.shift()?.(), get pending() { return queue.length; } };
}

test('start queue :: one start per turn of the event loop, at most the limit in flight', () => {
  const clock = manual();
  const queue = new StartQueue(2, clock.schedule);
  const started: string[] = [];
  const ends = ['a', 'b', 'c'].map((name) => queue.ask(name, () => started.push(name)));
  assert.equal(started, [], 'nothing starts in the caller\'s turn');
  clock.turn();
  assert.equal(started, ['a']);
  clock.turn();
  assert.equal(started, ['a', 'b'], 'the second start comes a turn later');
  assert.is(clock.pending, 0, 'c waits for a slot');
  assert.equal(queue.counts, { running: 2, waiting: 1 });
  ends[0]!();
  ends[0]!();
  clock.turn();
  assert.equal(started, ['a', 'b', 'c'], 'an ended start (once, however often it is ended) lets c begin');
  assert.equal(queue.counts, { running: 2, waiting: 0 });
});

test('start queue :: a start ended before its turn never runs', () => {
  const clock = manual();
  const queue = new StartQueue(1, clock.schedule);
  const started: string[] = [];
  const endA = queue.ask('a', () => started.push('a'));
  queue.ask('b', () => started.push('b'));
  endA();
  clock.turn();
  clock.turn();
  assert.equal(started, ['b']);
});

test.run();
