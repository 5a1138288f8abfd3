// What a TypeScript module imports at run time, for the tests that hold the layout to its threads
// (test/main/import-graph.test.ts, test/workers/entries.test.ts).
import ts from 'typescript';

// Specifiers of the imports a module performs at run time (with `types`, type-only ones too), read by TypeScript's own parser (a
// regex can be led across statements). Under verbatimModuleSyntax only `import type` and
// `export type` are erased: `import { type C }` still loads its module.
export function runtimeImports(source: string, { dynamic = true, types = false } = {}): string[] {
  const found: string[] = [];
  const file = ts.createSourceFile('module.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const specifier = (node: ts.Expression | undefined) => (node && ts.isStringLiteral(node) ? node.text : null);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && (types || !node.importClause?.isTypeOnly)) {
      const name = specifier(node.moduleSpecifier);
      if (name) found.push(name);
    } else if (ts.isExportDeclaration(node) && (types || !node.isTypeOnly)) {
      const name = specifier(node.moduleSpecifier);
      if (name) found.push(name);
    } else if (dynamic && ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const name = specifier(node.arguments[0]);
      if (name) found.push(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
