// The gateway's advertised capabilities: the union of its backends', nothing no backend offers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mergedCapabilities } from '../../lib/hub/capabilities.ts';

const C = suite('merged capabilities');

C('no backend: nothing advertised', () => {
  assert.equal(mergedCapabilities([]), {});
  assert.equal(mergedCapabilities([null, undefined, {}]), {});
});

C('each list only when a backend offers it, always with listChanged (the gateway announces backends coming and going)', () => {
  assert.equal(mergedCapabilities([{ tools: {} }]), { tools: { listChanged: true } });
  assert.equal(mergedCapabilities([{ tools: { listChanged: false } }, { prompts: {} }]), { tools: { listChanged: true }, prompts: { listChanged: true } });
});

C('resources.subscribe when any backend offers it, whatever the order', () => {
  assert.equal(mergedCapabilities([{ resources: {} }]), { resources: { listChanged: true } });
  assert.equal(mergedCapabilities([{ resources: { subscribe: true } }, { resources: {} }]), { resources: { listChanged: true, subscribe: true } });
  assert.equal(mergedCapabilities([{ resources: {} }, { resources: { subscribe: true } }]), { resources: { listChanged: true, subscribe: true } });
});

C('completions and logging when a backend offers them; what the gateway does not forward is left out', () => {
  assert.equal(mergedCapabilities([{ completions: {}, logging: {}, experimental: { x: {} }, extensions: { 'io.example/thing': {} } }]), { completions: {}, logging: {} });
});

C.run();
