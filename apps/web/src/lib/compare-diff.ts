/**
 * A line diff of two texts (the compare page's two reports): the longest common subsequence of
 * their lines, after the common head and tail are set aside. Small and pure: no diff package is
 * in the workspace, and a report is a few hundred lines.
 */

export type LineOpKind = 'same' | 'del' | 'add';

export interface LineOp {
  kind: LineOpKind;
  text: string;
  /** 1-based line in the first text (same and del), or null. */
  a: number | null;
  /** 1-based line in the second text (same and add), or null. */
  b: number | null;
}

/**
 * Past this many cells (middle lines of a × middle lines of b) the LCS table is not built: the
 * middle is shown as all removed then all added, which is still a true (if long) diff.
 */
export const MAX_LCS_CELLS = 4_000_000;

const linesOf = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** Every line of `a` and `b` in order, each kept (same), removed from a (del) or added in b (add). */
export function lineDiff(aText: string, bText: string, maxCells = MAX_LCS_CELLS): LineOp[] {
  const a = linesOf(aText);
  const b = linesOf(bText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;

  const ops: LineOp[] = [];
  for (let i = 0; i < head; i++) ops.push({ kind: 'same', text: a[i], a: i + 1, b: i + 1 });

  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const n = am.length;
  const m = bm.length;
  if (n > 0 && m > 0 && n * m <= maxCells) {
    // lcs[i][j]: the LCS length of am[i..] and bm[j..], row-major in one array.
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = am[i] === bm[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (am[i] === bm[j]) {
        ops.push({ kind: 'same', text: am[i], a: head + i + 1, b: head + j + 1 });
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
        ops.push({ kind: 'del', text: am[i], a: head + i + 1, b: null });
        i++;
      } else {
        ops.push({ kind: 'add', text: bm[j], a: null, b: head + j + 1 });
        j++;
      }
    }
    for (; i < n; i++) ops.push({ kind: 'del', text: am[i], a: head + i + 1, b: null });
    for (; j < m; j++) ops.push({ kind: 'add', text: bm[j], a: null, b: head + j + 1 });
  } else {
    am.forEach((text, i) => ops.push({ kind: 'del', text, a: head + i + 1, b: null }));
    bm.forEach((text, j) => ops.push({ kind: 'add', text, a: null, b: head + j + 1 }));
  }

  for (let k = 0; k < tail; k++) {
    const ai = a.length - tail + k;
    const bi = b.length - tail + k;
    ops.push({ kind: 'same', text: a[ai], a: ai + 1, b: bi + 1 });
  }
  return ops;
}

export interface DiffStats {
  added: number;
  removed: number;
  same: number;
}

export function diffStats(ops: readonly LineOp[]): DiffStats {
  const s = { added: 0, removed: 0, same: 0 };
  for (const op of ops) {
    if (op.kind === 'add') s.added++;
    else if (op.kind === 'del') s.removed++;
    else s.same++;
  }
  return s;
}

/** What the page shows: changed lines with `context` kept lines around them, and a gap for each run of kept lines left out. */
export type DiffRow = LineOp | { kind: 'gap'; lines: number };

export function diffRows(ops: readonly LineOp[], context = 3): DiffRow[] {
  const near = new Array<boolean>(ops.length).fill(false);
  ops.forEach((op, i) => {
    if (op.kind === 'same') return;
    for (let k = Math.max(0, i - context); k <= Math.min(ops.length - 1, i + context); k++) near[k] = true;
  });
  const rows: DiffRow[] = [];
  let skipped = 0;
  ops.forEach((op, i) => {
    if (near[i]) {
      if (skipped) rows.push({ kind: 'gap', lines: skipped });
      skipped = 0;
      rows.push(op);
    } else skipped++;
  });
  if (skipped) rows.push({ kind: 'gap', lines: skipped });
  return rows;
}
