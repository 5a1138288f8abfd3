// esbuild plugin for bundles that hold the SDK client: its JSON-schema validator shim becomes
// lib/backend/bundle/sdk-shims.ts, which loads ajv only when an output schema is used.
import { fileURLToPath } from 'node:url';

export const sdkShims = {
  name: 'sdk-shims',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/client\/_shims$/ }, () => ({ path: fileURLToPath(new URL('../lib/backend/bundle/sdk-shims.ts', import.meta.url)) }));
  },
};
