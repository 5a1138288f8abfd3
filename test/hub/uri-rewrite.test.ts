// uri-rewrite.ts: table tests of each rewrite, backend results in, client-facing results out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtocolError } from '@modelcontextprotocol/server';
import { qualifyPromptResult, qualifyReadResult, qualifyResourceError, qualifyToolResult } from '../../lib/hub/uri-rewrite.ts';

type Json = Record<string, unknown>;
type Case = { name: string; input: Json; expected: Json };

// A result with nothing to rewrite comes back as the very same object.
type IdentityCase = { name: string; input: Json };

const link = (uri: unknown, extra: Json = {}) => ({ type: 'resource_link', uri, name: 'n', ...extra });
const embedded = (resource: unknown) => ({ type: 'resource', resource });
const text = { type: 'text', text: 'file:///not/a/link' };
const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };

function run(label: string, fn: (server: string, result: Json) => Json, cases: Case[], identities: IdentityCase[]): void {
  for (const { name, input, expected } of cases) {
    test(`uri-rewrite :: ${label}: ${name}`, () => {
      const before = structuredClone(input);
      assert.equal(fn('files', input), expected);
      assert.equal(input, before, 'the backend result is not changed in place');
    });
  }
  for (const { name, input } of identities) {
    test(`uri-rewrite :: ${label}: ${name} comes back as it is`, () => {
      assert.is(fn('files', input), input);
    });
  }
}

run(
  'tool result',
  qualifyToolResult,
  [
    {
      name: 'a resource_link gets the client-facing URI, its other fields kept',
      input: { content: [link('file:///srv/a.txt', { mimeType: 'text/plain', description: 'd' })] },
      expected: { content: [link('files_agent_file:///srv/a.txt', { mimeType: 'text/plain', description: 'd' })] },
    },
    {
      name: "an embedded resource's resource.uri is qualified, its text or blob kept",
      input: { content: [embedded({ uri: 'mem://one', text: 'hello', mimeType: 'text/plain' }), embedded({ uri: 'mem://two', blob: 'AAAA' })] },
      expected: { content: [embedded({ uri: 'files_agent_mem://one', text: 'hello', mimeType: 'text/plain' }), embedded({ uri: 'files_agent_mem://two', blob: 'AAAA' })] },
    },
    {
      name: 'text and image blocks are left alone, even a text that looks like a URI',
      input: { content: [text, image, link('a://b')] },
      expected: { content: [text, image, link('files_agent_a://b')] },
    },
    {
      name: 'a link without a string uri, an embedded resource without resource.uri, and non-objects are left alone',
      input: { content: [link(42), { type: 'resource_link' }, embedded({ text: 'no uri' }), embedded({ uri: 7 }), embedded('mem://x'), { type: 'resource', uri: 'mem://top' }, null, 'mem://s', ['mem://a']] },
      expected: { content: [link(42), { type: 'resource_link' }, embedded({ text: 'no uri' }), embedded({ uri: 7 }), embedded('mem://x'), { type: 'resource', uri: 'mem://top' }, null, 'mem://s', ['mem://a']] },
    },
    {
      name: 'an unknown block type with a uri is not rewritten',
      input: { content: [{ type: 'resource_ref', uri: 'mem://x' }] },
      expected: { content: [{ type: 'resource_ref', uri: 'mem://x' }] },
    },
    {
      name: 'structuredContent, _meta, isError and links nested inside a block are not rewritten',
      input: {
        content: [embedded({ uri: 'mem://outer', _meta: { link: link('mem://inner') } })],
        structuredContent: { uri: 'mem://data', items: [link('mem://deep')] },
        _meta: { uri: 'mem://meta' },
        isError: true,
      },
      expected: {
        content: [embedded({ uri: 'files_agent_mem://outer', _meta: { link: link('mem://inner') } })],
        structuredContent: { uri: 'mem://data', items: [link('mem://deep')] },
        _meta: { uri: 'mem://meta' },
        isError: true,
      },
    },
    {
      name: 'a URI that contains the separator is qualified once more, not split',
      input: { content: [link('other_agent_x://y')] },
      expected: { content: [link('files_agent_other_agent_x://y')] },
    },
    { name: 'an empty content list stays empty', input: { content: [] }, expected: { content: [] } },
  ],
  [
    { name: 'a result without content (a task handle, input_required)', input: { resultType: 'input_required', inputRequests: {}, requestState: 's' } },
    { name: 'content that is not a list', input: { content: link('mem://x') } },
  ],
);

run(
  'prompt result',
  qualifyPromptResult,
  [
    {
      name: "a message's single content block (the MCP shape) is rewritten, the message's role kept",
      input: {
        description: 'd',
        messages: [
          { role: 'user', content: link('mem://a') },
          { role: 'assistant', content: embedded({ uri: 'mem://b', text: 't' }) },
          { role: 'user', content: text },
        ],
      },
      expected: {
        description: 'd',
        messages: [
          { role: 'user', content: link('files_agent_mem://a') },
          { role: 'assistant', content: embedded({ uri: 'files_agent_mem://b', text: 't' }) },
          { role: 'user', content: text },
        ],
      },
    },
    {
      name: 'a message whose content is a list of blocks has each block rewritten',
      input: { messages: [{ role: 'user', content: [text, link('mem://a'), embedded({ uri: 'mem://b', blob: 'AA' })] }] },
      expected: { messages: [{ role: 'user', content: [text, link('files_agent_mem://a'), embedded({ uri: 'files_agent_mem://b', blob: 'AA' })] }] },
    },
    {
      name: 'non-object messages, and a uri outside the content, are left alone',
      input: { messages: [null, 'mem://a', { role: 'user', uri: 'mem://x', content: link(1) }] },
      expected: { messages: [null, 'mem://a', { role: 'user', uri: 'mem://x', content: link(1) }] },
    },
  ],
  [
    { name: 'a result without messages', input: { description: 'mem://x' } },
    { name: 'messages that are not a list', input: { messages: { role: 'user', content: link('mem://a') } } },
  ],
);

run(
  'read result',
  qualifyReadResult,
  [
    {
      name: "each content's uri is qualified, text and blob alike, other fields kept",
      input: { contents: [{ uri: 'file:///a', text: 'x', mimeType: 'text/plain' }, { uri: 'file:///b', blob: 'AAAA' }], ttlMs: 10 },
      expected: { contents: [{ uri: 'files_agent_file:///a', text: 'x', mimeType: 'text/plain' }, { uri: 'files_agent_file:///b', blob: 'AAAA' }], ttlMs: 10 },
    },
    {
      name: 'a content without a string uri, and non-objects, are left alone; a nested uri is not rewritten',
      input: { contents: [{ text: 'no uri' }, { uri: 3 }, null, 'file:///c', { uri: 'file:///d', _meta: { uri: 'file:///e' } }] },
      expected: { contents: [{ text: 'no uri' }, { uri: 3 }, null, 'file:///c', { uri: 'files_agent_file:///d', _meta: { uri: 'file:///e' } }] },
    },
  ],
  [
    { name: 'a result without contents', input: { uri: 'file:///a' } },
    { name: 'contents that are not a list', input: { contents: { uri: 'file:///a' } } },
  ],
);

test('uri-rewrite :: the server name is the prefix: another server gives another URI', () => {
  const result = { content: [link('mem://a')] };
  assert.equal(
    ['a', 'b-2', 'x.y'].map((server) => (qualifyToolResult(server, result).content as { uri: string }[])[0]!.uri),
    ['a_agent_mem://a', 'b-2_agent_mem://a', 'x.y_agent_mem://a'],
  );
});

test('uri-rewrite :: a failed read names the resource as the client asked for it', () => {
  const asError = (e: unknown) => e as ProtocolError;
  // The SDK's "not found" (-32602 whose data is {uri} alone), its message sanitized by the router.
  const sdk = asError(qualifyResourceError('fx', 'nope://x', new ProtocolError(-32602, 'Resource not found: [URL]', { uri: 'nope://x' })));
  assert.is(sdk.code, -32602);
  assert.is(sdk.message, "Unknown resource: fx_agent_nope://x (backend 'fx' has no such resource)");
  assert.equal(sdk.data, { uri: 'fx_agent_nope://x', code: 'unknown_resource', backend: 'fx' });
  // The URI the backend names (normalized by it), whatever the message.
  const normalized = asError(qualifyResourceError('fx', 'https://h.example', new ProtocolError(-32602, 'no such thing', { uri: 'https://h.example/' })));
  assert.equal(normalized.data, { uri: 'fx_agent_https://h.example/', code: 'unknown_resource', backend: 'fx' });
  // The older -32002, with or without data.
  const old = asError(qualifyResourceError('fx', 'nope://x', new ProtocolError(-32002, 'Resource not found', undefined)));
  assert.is(old.code, -32002);
  assert.equal(old.data, { code: 'unknown_resource', uri: 'fx_agent_nope://x', backend: 'fx' });
  // Another error naming a URI: only the URI is the client's; message and code stay.
  const invalid = asError(qualifyResourceError('fx', 'bad://', new ProtocolError(-32602, 'Resource URI [URL] is invalid', { uri: 'bad://', why: 'x' })));
  assert.equal([invalid.code, invalid.message, invalid.data], [-32602, 'Resource URI [URL] is invalid', { uri: 'fx_agent_bad://', why: 'x' }]);
  // Errors that name no URI, and what is not an MCP error, are returned as they are.
  const other = new ProtocolError(-32603, 'boom', { code: 'backend_failed' });
  assert.is(qualifyResourceError('fx', 'nope://x', other), other);
  const bare = new ProtocolError(-32602, 'Resource nope://x not found', undefined);
  assert.is(qualifyResourceError('fx', 'nope://x', bare), bare);
  const plain = new Error('x');
  assert.is(qualifyResourceError('fx', 'nope://x', plain), plain);
});

test.run();
