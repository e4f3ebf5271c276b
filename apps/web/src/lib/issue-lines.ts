import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

/** One issue of a 400 as the New run page shows it: at its field, with the project-file line it points at. */
export interface LocatedIssue {
  path: string;
  message: string;
  /** 1-based line in the project file; null when the path names nothing in it (a missing field: its parent's line). */
  line: number | null;
  /** That line's text, trimmed at the end, for showing beside the message. */
  lineText: string | null;
}

const segmentsOf = (path: string): string[] => (path === '' ? [] : path.split('.'));

/**
 * Maps each issue's dotted path (`roles.proposer.provider`, `agents.0.model`) to the line of the
 * project file it names, with the yaml package's node ranges. A path that runs past what the file
 * holds (a required field left out) points at the deepest part that exists: that is where to add it.
 * An unknown field is reported at the object holding it, naming the field (`unknown field(s) "budgte"`):
 * that field's own line is the one to show. The file may be YAML or JSON (JSON is YAML); if it does
 * not parse, every issue has line null, but for the syntax error itself, whose message starts with
 * the line and column it names (`line 10, column 12: malformed YAML: …`).
 */
export function locateIssues(source: string, issues: readonly { path: string; message: string }[]): LocatedIssue[] {
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, keepSourceTokens: false, uniqueKeys: false });
  const lines = source.split(/\r?\n/);
  const usable = doc.errors.length === 0 ? doc.contents : null;
  return issues.map(({ path, message }) => {
    // A syntax error (the api's `line L, column C: malformed YAML: …`) names its own line.
    const syntax = /^line (\d+), column \d+: /.exec(message);
    if (syntax) {
      const line = Number(syntax[1]);
      return { path, message, line, lineText: lines[line - 1]?.trimEnd() ?? null };
    }
    const named = /unknown field\(s\) "([^"]+)"/.exec(message)?.[1];
    const segments = segmentsOf(path);
    const offset = usable ? (named ? exactOffsetOf(usable as Node, [...segments, named]) : null) ?? offsetOf(usable as Node, segments) : null;
    if (offset === null) return { path, message, line: null, lineText: null };
    const line = counter.linePos(offset).line;
    return { path, message, line, lineText: lines[line - 1]?.trimEnd() ?? null };
  });
}

/** The offset of exactly the node the path names, or null when some part of it is not in the file. */
function exactOffsetOf(root: Node, segments: string[]): number | null {
  const found = walk(root, segments);
  return found.depth === segments.length ? found.offset : null;
}

/** The source offset of the node the path names (its key's, for a map entry), or the deepest one that exists. */
function offsetOf(root: Node, segments: string[]): number | null {
  return walk(root, segments).offset;
}

function walk(root: Node, segments: string[]): { offset: number | null; depth: number } {
  let node: unknown = root;
  let offset: number | null = root.range?.[0] ?? null;
  let depth = 0;
  for (const seg of segments) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === seg);
      if (!pair) break;
      const key = pair.key as Node | null;
      offset = key?.range?.[0] ?? (pair.value as Node | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && /^\d+$/.test(seg)) {
      const item = node.items[Number(seg)] as Node | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
    depth++;
  }
  return { offset, depth };
}
