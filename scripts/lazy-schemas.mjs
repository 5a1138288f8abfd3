// esbuild plugin for the backend and hub bundles: every top-level `const X = <call>` of the MCP SDK's
// built modules whose initializer uses zod (`z.`) or another schema (`...Schema`) becomes
// `const X = lazySchema(() => <call>)` (lib/shared/lazy-schema.ts), so a worker builds
// only the schemas it uses. Parsed with TypeScript's parser; nothing else in the files changes.
import fs from 'node:fs';
import ts from 'typescript';

const SDK_FILE = /[\\/]@modelcontextprotocol[\\/](core|client|server)[\\/]dist[\\/][^\\/]+\.mjs$/;

export function wrapSchemas(source, fileName) {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const edits = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isIdentifier(declaration.name) || !ts.isCallExpression(init)) continue;
      const text = init.getText(file);
      if (!/\bz\.|Schema\b/.test(text)) continue;
      edits.push({ start: init.getStart(file), end: init.getEnd() });
    }
  }
  let out = source;
  for (const { start, end } of edits.reverse()) out = `${out.slice(0, start)}__agentLazySchema(() => (${out.slice(start, end)}))${out.slice(end)}`;
  return { contents: edits.length ? `import { lazySchema as __agentLazySchema } from ${JSON.stringify(LAZY)};\n${out}` : source, count: edits.length };
}

const LAZY = new URL('../lib/shared/lazy-schema.ts', import.meta.url).pathname;

export const lazySchemas = {
  name: 'lazy-schemas',
  setup(build) {
    build.onLoad({ filter: SDK_FILE }, async (args) => ({ contents: wrapSchemas(await fs.promises.readFile(args.path, 'utf8'), args.path).contents, loader: 'js' }));
  },
};
