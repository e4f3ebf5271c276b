import { CST, parseDocument, Parser, type YAMLError } from 'yaml';

/** Where a project file stops being YAML or JSON, as an editor counts it: 1-based line and column. */
export interface SyntaxErrorAt {
  line: number;
  column: number;
  /** What is wrong there, with no position in it (the position is `line`/`column`). */
  message: string;
}

/** The one way a syntax error is written: `line L, column C: <what is wrong>`. */
export function formatSyntaxError(e: SyntaxErrorAt): string {
  return `line ${e.line}, column ${e.column}: ${e.message}`;
}

/** 1-based line and column of a 0-based offset into the text. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: before.length - lastBreak };
}

interface OpenFlow {
  offset: number;
  bracket: '{' | '[';
}

/** Every flow collection (`{ … }`, `[ … ]`) of the text that the parser saw opened and never closed. */
function unclosedFlows(source: string): OpenFlow[] {
  const open: OpenFlow[] = [];
  const check = (node: CST.Token | null | undefined) => {
    if (node?.type !== 'flow-collection') return;
    const bracket = node.start.source as '{' | '[';
    const closer = bracket === '{' ? '}' : ']';
    if (!node.end.some((t) => t.source === closer)) open.push({ offset: node.start.offset, bracket });
  };
  for (const token of new Parser().parse(source)) {
    if (token.type !== 'document') continue;
    check(token.value);
    CST.visit(token, (item) => {
      check(item.key as CST.Token | null);
      check(item.value);
    });
  }
  return open.sort((a, b) => a.offset - b.offset);
}

/**
 * A yaml-package error as one message at one place. Its own text ends with the position it found
 * the problem at, then a snippet of the file; both are dropped here, so the position is said once.
 * A flow collection left open is reported where it was opened (the yaml package only notices at
 * the next line that cannot belong to it, which is not where the fix goes), naming where that was.
 */
export function yamlSyntaxErrorAt(source: string, err: YAMLError): SyntaxErrorAt {
  const found = err.linePos?.[0] ?? lineColumnOf(source, err.pos?.[0] ?? 0);
  const foundAt = { line: found.line, column: 'col' in found ? found.col : found.column };
  const what = err.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').split('\n')[0];
  const flow = /\bflow (map|sequence)\b/i.exec(what);
  if (flow) {
    const bracket = flow[1].toLowerCase() === 'map' ? '{' : '[';
    const closer = bracket === '{' ? '}' : ']';
    const errOffset = err.pos?.[0] ?? source.length;
    const opener = unclosedFlows(source)
      .filter((f) => f.bracket === bracket && f.offset < errOffset)
      .pop();
    if (opener) {
      const at = lineColumnOf(source, opener.offset);
      const seen = foundAt.line === at.line ? `column ${foundAt.column}` : `line ${foundAt.line}, column ${foundAt.column}`;
      const before = errOffset >= source.trimEnd().length ? 'the end of the file' : seen;
      return { ...at, message: `this "${bracket}" is never closed: a "${closer}" is missing before ${before}` };
    }
  }
  return { ...foundAt, message: what };
}

/** The first syntax error of a YAML (or JSON: JSON is YAML) text, or null when it parses. */
export function findYamlSyntaxError(source: string): SyntaxErrorAt | null {
  const e = parseDocument(source).errors[0];
  return e ? yamlSyntaxErrorAt(source, e) : null;
}

const describeChar = (c: string | undefined) => (c === undefined ? 'the end of the text' : JSON.stringify(c));

/**
 * A strict JSON reader that only finds the first error: where, and what was expected there.
 * JSON.parse says "position 411" on some Node versions and nothing on others; this says the same
 * on all, and for a bracket left open points at the bracket.
 */
export function findJsonSyntaxError(text: string): SyntaxErrorAt | null {
  let i = 0;
  const stack: { offset: number; bracket: '{' | '[' }[] = [];
  class Stop extends Error {
    constructor(
      readonly offset: number,
      readonly what: string,
    ) {
      super(what);
    }
  }
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (what: string): never => {
    if (i >= text.length && stack.length) {
      const open = stack[stack.length - 1];
      throw new Stop(open.offset, `this "${open.bracket}" is never closed: a "${open.bracket === '{' ? '}' : ']'}" is missing before the end of the text`);
    }
    throw new Stop(i, `${what}, found ${describeChar(text[i])}`);
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        const n = text[i + 1];
        if (n === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2;
            fail('a \\u escape needs four hex digits');
          }
          i += 6;
        } else if (n !== undefined && '"\\/bfnrt'.includes(n)) {
          i += 2;
        } else {
          i++;
          fail('a backslash in a string must start an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
        }
      } else if (c < ' ') {
        fail('a string cannot hold a raw control character or line break (write \\n)');
      } else {
        i++;
      }
    }
    fail('a string is never closed with "');
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push({ offset: i, bracket: c });
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        stack.pop();
        return;
      }
      for (;;) {
        if (c === '{') {
          ws();
          if (text[i] !== '"') fail('expected a property name in double quotes');
          string();
          ws();
          if (text[i] !== ':') fail(`expected ":" after the property name`);
          i++;
        }
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) {
          i++;
          stack.pop();
          return;
        }
        fail(`expected "," or "${close}"`);
      }
    }
    if (c === '"') return string();
    const lit = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (lit && lit[0]) {
      i += lit[0].length;
      return;
    }
    fail('expected a value (a string in double quotes, a number, true, false, null, { or [)');
  };
  try {
    value();
    ws();
    if (i < text.length) fail('expected nothing more after the JSON value');
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return { ...lineColumnOf(text, e.offset), message: e.what };
  }
}
