import { diffRows, diffStats, lineDiff, type LineOp } from './compare-diff';

/** The ops as a unified diff's lines: ' x', '-x', '+x'. */
const unified = (ops: LineOp[]) => ops.map((o) => `${o.kind === 'same' ? ' ' : o.kind === 'del' ? '-' : '+'}${o.text}`);

/** The first text, rebuilt from the ops (kept and removed lines), and the second (kept and added). */
const sides = (ops: LineOp[]) => ({
  a: ops.filter((o) => o.kind !== 'add').map((o) => o.text),
  b: ops.filter((o) => o.kind !== 'del').map((o) => o.text),
});

describe('lineDiff', () => {
  it('keeps equal texts whole, with each line numbered on both sides', () => {
    expect(lineDiff('x\ny\n', 'x\ny\n')).toEqual([
      { kind: 'same', text: 'x', a: 1, b: 1 },
      { kind: 'same', text: 'y', a: 2, b: 2 },
    ]);
  });

  it('finds a changed line in the middle, with its line numbers', () => {
    const ops = lineDiff('# Report\nrun: run_a\nverdict: ACCEPT\nend', '# Report\nrun: run_b\nverdict: ACCEPT\nend');
    expect(unified(ops)).toEqual([' # Report', '-run: run_a', '+run: run_b', ' verdict: ACCEPT', ' end']);
    expect(ops[1]).toEqual({ kind: 'del', text: 'run: run_a', a: 2, b: null });
    expect(ops[2]).toEqual({ kind: 'add', text: 'run: run_b', a: null, b: 2 });
    expect(ops[4]).toEqual({ kind: 'same', text: 'end', a: 4, b: 4 });
  });

  it('is a longest common subsequence: moved and inserted lines cost no more than they must', () => {
    const ops = lineDiff('a\nb\nc\nd\ne', 'a\nc\nd\nx\ne\nf');
    expect(unified(ops)).toEqual([' a', '-b', ' c', ' d', '+x', ' e', '+f']);
    expect(diffStats(ops)).toEqual({ added: 2, removed: 1, same: 4 });
  });

  it('rebuilds both texts from its ops, on texts with repeated lines', () => {
    const a = ['p', 'q', 'p', 'r', 'p', 'q', 's'];
    const b = ['q', 'p', 'p', 'r', 's', 'q', 'p'];
    const ops = lineDiff(a.join('\n'), b.join('\n'));
    expect(sides(ops)).toEqual({ a, b });
    // LCS of the two is 4 (e.g. q p r s / p p r s …): three removed and three added.
    expect(diffStats(ops)).toEqual({ added: 3, removed: 3, same: 4 });
  });

  it('treats an empty text as no lines, and CRLF as LF', () => {
    expect(lineDiff('', '')).toEqual([]);
    expect(unified(lineDiff('', 'one\ntwo\n'))).toEqual(['+one', '+two']);
    expect(unified(lineDiff('one\r\ntwo\r\n', 'one\ntwo\n'))).toEqual([' one', ' two']);
  });

  it('past the cell limit shows the middle as removed then added, keeping the common head and tail', () => {
    const ops = lineDiff('h\n1\n2\nt', 'h\n2\n3\nt', 3);
    expect(unified(ops)).toEqual([' h', '-1', '-2', '+2', '+3', ' t']);
    expect(sides(ops)).toEqual({ a: ['h', '1', '2', 't'], b: ['h', '2', '3', 't'] });
  });
});

describe('diffRows', () => {
  const ops = lineDiff(Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n'), Array.from({ length: 20 }, (_, i) => (i === 10 ? 'changed' : `l${i}`)).join('\n'));

  it('keeps `context` lines around each change and counts the lines left out', () => {
    const rows = diffRows(ops, 2);
    expect(rows[0]).toEqual({ kind: 'gap', lines: 8 });
    expect(rows.slice(1, -1).map((r) => (r.kind === 'gap' ? 'gap' : `${r.kind}:${r.text}`))).toEqual(['same:l8', 'same:l9', 'del:l10', 'add:changed', 'same:l11', 'same:l12']);
    expect(rows[rows.length - 1]).toEqual({ kind: 'gap', lines: 7 });
  });

  it('is one gap for two equal texts, and nothing for two empty ones', () => {
    expect(diffRows(lineDiff('a\nb\nc', 'a\nb\nc'))).toEqual([{ kind: 'gap', lines: 3 }]);
    expect(diffRows([])).toEqual([]);
  });
});
