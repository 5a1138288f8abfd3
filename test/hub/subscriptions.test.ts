// ResourceSubscriptions: reference counting per backend URI across clients.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ResourceSubscriptions } from '../../lib/hub/subscriptions.ts';
import type { LinkOutcome } from '../../lib/hub/link-types.ts';

function link(answer: LinkOutcome = { ok: true, result: {} }) {
  const asked: string[] = [];
  return {
    asked,
    subscribe: async (uri: string) => (asked.push(`+${uri}`), answer),
    unsubscribe: (uri: string) => void asked.push(`-${uri}`),
  };
}
const client = () => {
  const heard: string[] = [];
  return { heard, resourceUpdated: (uri: string) => void heard.push(uri) };
};

const S = suite('resource subscriptions');

S('the backend is asked when the first client subscribes and let go when the last leaves; updates reach subscribers only', async () => {
  const subs = new ResourceSubscriptions();
  const l = link();
  const [a, b, c] = [client(), client(), client()];
  await subs.add(a, 'files', 'file:///x', l);
  await subs.add(b, 'files', 'file:///x', l);
  await subs.add(b, 'files', 'file:///x', l);
  assert.equal(l.asked, ['+file:///x']);
  assert.is(subs.count('files', 'file:///x'), 2);
  subs.updated('files', 'file:///x');
  subs.updated('files', 'file:///other');
  assert.equal(a.heard, ['files_agent_file:///x']);
  assert.equal(b.heard, ['files_agent_file:///x']);
  assert.equal(c.heard, []);
  subs.remove(a, 'files', 'file:///x', l);
  assert.equal(l.asked, ['+file:///x']);
  subs.drop(b, () => l);
  assert.equal(l.asked, ['+file:///x', '-file:///x']);
  assert.is(subs.count('files', 'file:///x'), 0);
});

S('a backend that refuses: the first subscriber gets its error, nothing is kept, the next one asks again', async () => {
  const subs = new ResourceSubscriptions();
  const refusing = link({ ok: false, error: { kind: 'mcp', code: -32601, message: 'Method not found' } });
  const error = await subs.add(client(), 'b', 'u://1', refusing).then(() => null, (e: { code: number }) => e);
  assert.is(error?.code, -32601);
  assert.is(subs.count('b', 'u://1'), 0);
  await subs.add(client(), 'b', 'u://1', link());
  assert.is(subs.count('b', 'u://1'), 1);
});

S("a refusal's data: the backend's own kept with the catalogue code beside it, ours when it sent none (found by an outside check: it was replaced by {backend})", async () => {
  const subs = new ResourceSubscriptions();
  const refusal = (data?: unknown) => link({ ok: false, error: { kind: 'mcp', code: -32603, message: 'subscribe failed [REDACTED]', ...(data === undefined ? {} : { data }) } });
  const dataOf = (l: ReturnType<typeof link>) => subs.add(client(), 'b', 'u://1', l).then(() => null, (e: { data?: unknown }) => e.data);
  assert.equal(await dataOf(refusal({ k: '[REDACTED]' })), { k: '[REDACTED]', code: 'backend_error' });
  assert.equal(await dataOf(refusal()), { code: 'backend_error', backend: 'b', reason: 'mcp' });
});

S('a backend removed from the configuration is forgotten', async () => {
  const subs = new ResourceSubscriptions();
  const l = link();
  await subs.add(client(), 'gone', 'u://1', l);
  subs.forget('gone');
  assert.is(subs.count('gone', 'u://1'), 0);
  await subs.add(client(), 'gone', 'u://1', l);
  assert.equal(l.asked, ['+u://1', '+u://1'], 'asked afresh');
});

S('a backend with a new worker (the old one died) is asked again for every resource subscribed there', async () => {
  const subs = new ResourceSubscriptions();
  const old = link();
  await subs.add(client(), 'b', 'u://1', old);
  await subs.add(client(), 'b', 'u://2', old);
  await subs.add(client(), 'other', 'u://3', old);
  const successor = link();
  subs.relink('b', successor);
  assert.equal(successor.asked, ['+u://1', '+u://2']);
  assert.is(subs.count('b', 'u://1'), 1, 'the subscribers stay');
});

S.run();
