// Which backend questions a client can answer, by its declared capabilities (issue 15): what it
// cannot answer is refused with the error that client itself would give.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inputRefusal } from '../../lib/hub/client-input.ts';

const R = suite('client input: refusals');

R('elicitation needs the elicitation capability; an empty one is form mode only', () => {
  assert.equal(inputRefusal('elicitation/create', { message: 'm' }, {}), { code: -32601, message: 'Method not found' });
  assert.equal(inputRefusal('elicitation/create', { message: 'm' }, undefined), { code: -32601, message: 'Method not found' });
  assert.is(inputRefusal('elicitation/create', { message: 'm' }, { elicitation: {} }), null);
  assert.is(inputRefusal('elicitation/create', { mode: 'form', message: 'm' }, { elicitation: {} }), null);
  assert.equal(inputRefusal('elicitation/create', { mode: 'url', url: 'https://x' }, { elicitation: {} }), { code: -32602, message: 'Client does not support URL-mode elicitation requests' });
});

R('URL mode declared alone excludes form mode; both declared admit both', () => {
  assert.is(inputRefusal('elicitation/create', { mode: 'url' }, { elicitation: { url: {} } }), null);
  assert.equal(inputRefusal('elicitation/create', { message: 'm' }, { elicitation: { url: {} } }), { code: -32602, message: 'Client does not support form-mode elicitation requests' });
  assert.is(inputRefusal('elicitation/create', { message: 'm' }, { elicitation: { form: {}, url: {} } }), null);
  assert.is(inputRefusal('elicitation/create', { mode: 'url' }, { elicitation: { form: {}, url: {} } }), null);
});

R('sampling needs the sampling capability, and sampling.tools when the request offers tools', () => {
  assert.equal(inputRefusal('sampling/createMessage', { messages: [] }, { elicitation: {} }), { code: -32601, message: 'Method not found' });
  assert.is(inputRefusal('sampling/createMessage', { messages: [] }, { sampling: {} }), null);
  assert.equal(inputRefusal('sampling/createMessage', { messages: [], tools: [] }, { sampling: {} })?.code, -32602);
  assert.equal(inputRefusal('sampling/createMessage', { messages: [], toolChoice: { mode: 'auto' } }, { sampling: {} })?.code, -32602);
  assert.is(inputRefusal('sampling/createMessage', { messages: [], tools: [] }, { sampling: { tools: {} } }), null);
});

R.run();
