// Text-preserving edits of a JSON document (jsonc-parser's `modify` + `applyEdits`): an insertion or
// a removal touches only its own place, laid out like its container; every other byte stays.
import { applyEdits, type Edit, type FormattingOptions, findNodeAtLocation, format, type JSONPath, modify, type Node, parseTree } from 'jsonc-parser';
import { jsonPath } from './errors.ts';

/**
 * Formatting options matching the file: tabs or the most common indentation step in spaces
 * (2 when nothing is indented), and its line ending.
 */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let tabLines = 0;
  let spaceLines = 0;
  const steps = new Map<number, number>();
  let previous = 0;
  for (const line of text.split(/\r?\n/)) {
    const match = /^([ \t]*)\S/.exec(line);
    if (!match) continue;
    const indent = match[1]!;
    if (indent.startsWith('\t')) {
      tabLines++;
      continue;
    }
    if (indent.length) spaceLines++;
    const step = Math.abs(indent.length - previous);
    if (step) steps.set(step, (steps.get(step) ?? 0) + 1);
    previous = indent.length;
  }
  if (tabLines > spaceLines) return { insertSpaces: false, tabSize: 4, eol, insertFinalNewline: false };
  let best = 2;
  let bestCount = 0;
  for (const [step, count] of steps) {
    if (count > bestCount || (count === bestCount && step < best)) {
      best = step;
      bestCount = count;
    }
  }
  return { insertSpaces: true, tabSize: best, eol, insertFinalNewline: false };
}

const spansLines = (text: string, node: Node) => /[\r\n]/.test(text.slice(node.offset, node.offset + node.length));

/**
 * One `modify` at `at` (an insertion: a new property or a new array element at the end),
 * applied with `applyEdits`. The raw edit touches only the insertion point; the inserted text is
 * then laid out like its container: formatted with the file's indentation (jsonc-parser `format`
 * limited to the inserted range, so neighbouring lines keep their layout) when the container
 * spans lines, kept on one line otherwise.
 */
export function insert(text: string, at: JSONPath, value: unknown, options: FormattingOptions): string {
  const root = parseTree(text);
  const container = root && findNodeAtLocation(root, at.slice(0, -1));
  if (!container) throw new Error(`no container at ${jsonPath(at.slice(0, -1) as PropertyKey[])}`);
  const edits = modify(text, at, value, { isArrayInsertion: typeof at[at.length - 1] === 'number' });
  if (edits.length !== 1 || edits[0]!.length !== 0) throw new Error('unexpected edit from jsonc-parser');
  const edit = edits[0]!;
  if (!spansLines(text, container)) {
    // `{"a": 1}` stays on one line, spaced like the document: `, ` or `,`, `": ` or `":`.
    let content = edit.content;
    if (/,\s/.test(text) && content.startsWith(',')) content = `, ${content.slice(1)}`;
    const key = at[at.length - 1];
    if (typeof key === 'string' && !/":\s/.test(text)) content = content.replace(`${JSON.stringify(key)}: `, `${JSON.stringify(key)}:`);
    return applyEdits(text, [{ ...edit, content }]);
  }
  const inserted = applyEdits(text, [edit]);
  // The range starts one character early so that the break after a bare `{` or `[` counts too.
  const layout = format(inserted, { offset: edit.offset - 1, length: edit.content.length + 1 }, options);
  // Only whitespace inside the inserted text: the lines around it keep their bytes.
  const inside = layout.filter((e) => e.offset >= edit.offset && e.offset + e.length <= edit.offset + edit.content.length);
  return applyEdits(inserted, inside);
}

/** Removes element `index` of the array at `at` with `modify` + `applyEdits`. */
export function removeElement(text: string, at: JSONPath, index: number): string {
  const root = parseTree(text);
  const array = root && findNodeAtLocation(root, at);
  const children = array?.children ?? [];
  let edits: Edit[];
  if (children.length > 1 && index === children.length - 1) {
    // jsonc-parser 3.3.1 cuts the wrong range when removing the last of several elements
    // (microsoft/node-jsonc-parser#108: `["q", "r"]` becomes `["q""]`): remove from the end of
    // the previous element to the end of this one instead.
    const previous = children[index - 1]!;
    const last = children[index]!;
    edits = [{ offset: previous.offset + previous.length, length: last.offset + last.length - (previous.offset + previous.length), content: '' }];
  } else {
    edits = modify(text, [...at, index], undefined, {});
  }
  return applyEdits(text, edits);
}
