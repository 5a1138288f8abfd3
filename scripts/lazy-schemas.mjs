// esbuild plugin for the backend and hub bundles: every top-level `const X = <call>` of the MCP SDK's
// built modules whose initializer uses zod (`z.`) or another schema (`...Schema`), and the schemas
// of its era builders (below), become `lazySchema(() => <call>)` (lib/shared/lazy-schema.ts), so a
// worker builds only the schemas it uses. Parsed with TypeScript's parser; nothing else changes.
import fs from 'node:fs';
import ts from 'typescript';

const SDK_FILE = /[\\/]@modelcontextprotocol[\\/](core|client|server)[\\/]dist[\\/][^\\/]+\.mjs$/;

// The SDK builds each protocol era's wire schemas in one function (`build`, `build$1`): a few
// hundred schemas at once, on the first message of that era, 70 % of the zod schemas a backend
// worker held (benchmarks/README.md). Inside those, every value is a schema: each `const` that is
// a call (`z.object(...)`, `wireRequest(...)`) or a schema's `.shape`, and each call among the
// properties of the object literals it defines and returns (shapes, dispatch maps, the result).
const ERA_BUILDER = /^build(\$\d+)?$/;
const SCHEMA = '__agentLazySchema';
const COLLECTION = '__agentLazyCollection';

function isConst(statement) {
  return ts.isVariableStatement(statement) && (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
}

const usesSchema = (node, file) => /\bz\.|Schema\b/.test(node.getText(file));

/** The calls among an object literal's properties that `keep` accepts, each to be wrapped with `wrap`. */
function propertyCalls(literal, wrap, keep = () => true) {
  return literal.properties.filter((p) => ts.isPropertyAssignment(p) && ts.isCallExpression(p.initializer) && keep(p.initializer)).map((p) => ({ node: p.initializer, wrap }));
}

/**
 * Top level: `const X = <call>` whose call uses zod (`z.`) or another schema (`...Schema`); and the
 * collections derived from schemas as the module loads (`new Set(...Schema...)`, and the calls
 * among an object literal's properties that use one: the elicitation walker's key sets).
 */
function topLevelSchemas(file) {
  const found = [];
  for (const statement of file.statements) {
    if (!isConst(statement)) continue;
    for (const { name, initializer } of statement.declarationList.declarations) {
      if (!initializer || !ts.isIdentifier(name)) continue;
      if (ts.isCallExpression(initializer) && usesSchema(initializer, file)) found.push({ node: initializer, wrap: SCHEMA });
      else if (ts.isNewExpression(initializer) && usesSchema(initializer, file)) found.push({ node: initializer, wrap: COLLECTION });
      else if (ts.isObjectLiteralExpression(initializer)) found.push(...propertyCalls(initializer, COLLECTION, (call) => usesSchema(call, file)));
    }
  }
  return found;
}

function eraBuilderSchemas(fn) {
  const found = [];
  for (const statement of fn.body?.statements ?? []) {
    if (ts.isReturnStatement(statement) && statement.expression && ts.isObjectLiteralExpression(statement.expression)) found.push(...propertyCalls(statement.expression, SCHEMA));
    if (!isConst(statement)) continue;
    for (const { name, initializer } of statement.declarationList.declarations) {
      if (!initializer || !ts.isIdentifier(name)) continue;
      if (ts.isCallExpression(initializer) || (ts.isPropertyAccessExpression(initializer) && initializer.name.text === 'shape')) found.push({ node: initializer, wrap: SCHEMA });
      else if (ts.isObjectLiteralExpression(initializer)) found.push(...propertyCalls(initializer, SCHEMA));
    }
  }
  return found;
}

export function wrapSchemas(source, fileName) {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const found = topLevelSchemas(file);
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && ERA_BUILDER.test(statement.name.text)) found.push(...eraBuilderSchemas(statement));
  }
  // Replaced from the end, so the offsets of the ones before stay right; none of them nests in another.
  const edits = found.map(({ node, wrap }) => ({ start: node.getStart(file), end: node.getEnd(), wrap })).sort((a, b) => b.start - a.start);
  let out = source;
  for (const { start, end, wrap } of edits) out = `${out.slice(0, start)}${wrap}(() => (${out.slice(start, end)}))${out.slice(end)}`;
  return { contents: edits.length ? `import { lazySchema as ${SCHEMA}, lazyCollection as ${COLLECTION} } from ${JSON.stringify(LAZY)};\n${out}` : source, count: edits.length };
}

const LAZY = new URL('../lib/shared/lazy-schema.ts', import.meta.url).pathname;

export const lazySchemas = {
  name: 'lazy-schemas',
  setup(build) {
    build.onLoad({ filter: SDK_FILE }, async (args) => ({ contents: wrapSchemas(await fs.promises.readFile(args.path, 'utf8'), args.path).contents, loader: 'js' }));
  },
};
