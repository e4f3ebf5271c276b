import { splitUnifiedDiff } from './unified-diff';

const DIFF = `diff --git a/dd.py b/dd.py
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/dd.py
@@ -0,0 +1,2 @@
+def max_drawdown(xs):
+    return 0.0
diff --git a/tests/test_dd.py b/tests/test_dd.py
index 2222222..3333333 100644
--- a/tests/test_dd.py
+++ b/tests/test_dd.py
@@ -1,3 +1,3 @@
 import dd
-assert dd.max_drawdown([]) == 1
+assert dd.max_drawdown([]) == 0.0
 # end
\\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
`;

describe('splitUnifiedDiff', () => {
  const files = splitUnifiedDiff(DIFF);

  it('gives one entry per file, in order, with its path and status', () => {
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ['dd.py', 'added'],
      ['tests/test_dd.py', 'modified'],
      ['old.txt', 'deleted'],
    ]);
  });

  it('counts added and deleted lines and keeps the hunks', () => {
    expect(files.map((f) => [f.added, f.deleted])).toEqual([[2, 0], [1, 1], [0, 1]]);
    expect(files[1].lines.map((l) => l.kind)).toEqual(['hunk', 'context', 'del', 'add', 'context', 'meta']);
  });

  it('does not mistake the --- / +++ headers for changed lines', () => {
    expect(files[0].lines.some((l) => l.text.startsWith('+++'))).toBe(false);
  });

  it('returns nothing for an empty diff', () => {
    expect(splitUnifiedDiff('')).toEqual([]);
  });
});
