import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oversizedMessageId, oversizedMessageText } from '../../lib/backend/oversized.ts';

const big = 'x'.repeat(2000);
// [name, head, tail, expected id]
const cases: [string, string, string, string | number | null][] = [
  ['jsonrpc, id, result', `{"jsonrpc":"2.0","id":17,"result":{"content":"${big}`, `${big}"}}`, 17],
  ['id first', `{"id":3,"jsonrpc":"2.0","result":{"a":"${big}`, `${big}"}}`, 3],
  ['result, jsonrpc, id', `{"result":{"content":[{"type":"text","text":"${big}`, `${big}"}]},"jsonrpc":"2.0","id":42}`, 42],
  ['result, id, jsonrpc', `{"result":{"text":"${big}`, `${big}"},"id":42,"jsonrpc":"2.0"}`, 42],
  ['spaces and a newline-free pretty form', `{ "jsonrpc": "2.0", "id": 5, "result": {`, `} }`, 5],
  ['a string id', `{"jsonrpc":"2.0","id":"req-\\"9\\"","result":{`, `}}`, 'req-"9"'],
  ['a negative id', `{"jsonrpc":"2.0","id":-1,"result":{`, `}}`, -1],
  ['a nested id at the end is not the message id', `{"result":{"items":[{"id":1`, `{"id":99}]}}`, null],
  ['a nested id near the start is not the message id', `{"jsonrpc":"2.0","method":"x","params":{"id":4,`, `"y"}}`, null],
  ['a notification has no id', `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${big}`, `${big}"}}`, null],
  ['not JSON at all', 'garbage', 'garbage', null],
];

for (const [name, head, tail, expected] of cases) {
  test(`oversized :: id of ${name}`, () => {
    assert.is(oversizedMessageId({ head: Buffer.from(head), tail: Buffer.from(tail) }), expected);
  });
}

test('oversized :: the error names the backend, the size and the limit', () => {
  assert.is(oversizedMessageText('x', 17825792, 16777216), "backend 'x' sent a message of 17825792 bytes, over the limit of 16777216 bytes (--max-message-bytes)");
});

test.run();
