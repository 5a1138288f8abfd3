// The words a call in flight gets when its backend goes down: one per cause, each naming the
// backend and saying whether the request may be replayed (never).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type LossCause, lostCallsMessage } from '../../lib/main/lost-calls.ts';

const TABLE: [LossCause, string][] = [
  ['restarting', "backend 'db' restarted; the request was not completed and is not replayed"],
  ['crashLoop', "backend 'db' exited and is in crash loop; the request was not completed"],
  ['exited', "backend 'db' exited; the request was not completed"],
  ['lost', "backend 'db' lost its connection (a remote backend, reconnected with backoff); the request was not completed"],
  ['replaced', "backend 'db' is restarting for a change to its configuration; the request was not completed and is not replayed"],
  ['removed', "backend 'db' was removed or disabled in the configuration; the request was not completed"],
  ['stopped', "backend 'db' was stopped; the request was not completed"],
];

for (const [cause, message] of TABLE) {
  test(`lost calls :: ${cause}`, () => {
    assert.is(lostCallsMessage('db', cause), message);
  });
}

test('lost calls :: every cause has words of its own', () => {
  const messages = TABLE.map(([cause]) => lostCallsMessage('db', cause));
  assert.is(new Set(messages).size, TABLE.length);
});

test('lost calls :: an unknown cause is a programming error, not a silent message', () => {
  assert.throws(() => lostCallsMessage('db', 'vanished' as LossCause), /unknown cause vanished/);
});

test.run();
