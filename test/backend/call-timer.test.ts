// CallTimer: a call's requestTimeout that stops while the backend waits for the client's answer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CallTimer } from '../../lib/backend/call-timer.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const T = suite('call timer');

T('expires after its time when nothing happens', async () => {
  let expired = 0;
  const timer = new CallTimer(30, () => expired++);
  await sleep(80);
  assert.is(expired, 1);
  timer.clear();
});

T('a call without a time limit never expires, through pauses and restarts', async () => {
  let expired = 0;
  const timer = new CallTimer(null, () => expired++);
  timer.pause();
  timer.resume();
  timer.restart();
  await sleep(60);
  assert.is(expired, 0);
  timer.clear();
});

T('does not expire while paused, however long; resumed, it has its full time again', async () => {
  let expired = 0;
  const timer = new CallTimer(40, () => expired++);
  timer.pause();
  timer.pause();
  await sleep(100);
  timer.resume();
  await sleep(60);
  assert.is(expired, 0, 'one pause is still in force');
  timer.resume();
  await sleep(20);
  assert.is(expired, 0, 'full time after the last resume');
  await sleep(60);
  assert.is(expired, 1);
  timer.clear();
});

T('restart (progress) gives the full time again; cleared, it never fires', async () => {
  let expired = 0;
  const timer = new CallTimer(50, () => expired++);
  await sleep(30);
  timer.restart();
  await sleep(30);
  assert.is(expired, 0);
  timer.clear();
  await sleep(60);
  assert.is(expired, 0);
});

T.run();
