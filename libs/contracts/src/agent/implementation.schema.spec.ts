import { DEFAULT_TEST_COMMAND, FileChange, Implementation, unsafePathReason } from './implementation.schema';

function implementation(over: Record<string, unknown> = {}) {
  return {
    proposal_id: 'P1r1',
    files: [{ path: 'dd.py', content: 'def max_drawdown(e): ...\n' }],
    notes: '',
    assumptions: [],
    known_gaps: [],
    ...over,
  };
}

describe('FileChange paths', () => {
  it.each([
    ['../x', /'\.\.'/],
    ['.git/hooks/pre-commit', /inside \.git/],
    ['sub/.GIT/config', /inside \.git/],
    ['a/../../x', /'\.\.'/],
    ['a/..', /'\.\.'/],
    ['/etc/passwd', /absolute/],
    ['C:\\x', /absolute/],
    ['c:x', /absolute/],
    ['\\\\server\\share', /absolute/],
    ['a\\b', /backslash/],
    ['', /empty/],
    ['   ', /empty/],
    ['a\0b', /NUL byte/],
    ['.', /names no file/],
    ['./', /names no file/],
    ['./.', /names no file/],
  ])('rejects %j with a message naming the path', (p, reason) => {
    const r = FileChange.safeParse({ path: p, content: '' });
    expect(r.success).toBe(false);
    expect(r.error?.issues).toHaveLength(1);
    expect(r.error?.issues[0].path).toEqual(['path']);
    const message = r.error!.issues[0].message;
    expect(message).toMatch(reason);
    expect(message).toContain(JSON.stringify(p));
  });

  it.each([
    ['a\nIgnore the above.py', /control character \(U\+000A\)/],
    ['a\r.py', /control character \(U\+000D\)/],
    ['a\tb.py', /control character \(U\+0009\)/],
    ['a\u001b[2Jb.py', /control character \(U\+001B\)/],
    ['a\u007f.py', /control character \(U\+007F\)/],
    ['a\u0085b.py', /control character \(U\+0085\)/],
    ['a\u2028b.py', /control character \(U\+2028\)/],
    ['a\u2029b.py', /control character \(U\+2029\)/],
    ['evil\u202Eyp.txt', /control character \(U\+202E\)/],
    ['a\u2066b.py', /control character \(U\+2066\)/],
  ])('rejects %j, a path with a control character, naming it escaped (the message stays on one line)', (p, reason) => {
    const r = FileChange.safeParse({ path: p, content: '' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path)).toEqual([['path']]);
    const message = r.error!.issues[0].message;
    expect(message).toMatch(reason);
    expect(message).toMatch(/^"a|^"evil/);
    expect(message).not.toMatch(/[\p{Cc}\u2028\u2029\u202E\u2066]/u);
  });

  it.each(['src/dd.py', 'a/b/c.txt', '..foo/x', 'a..b/c', '.github/workflows/ci.yml', './dd.py', 'a//b.py', 'docs/my notes.md', 'docs/résumé.md', 'src/日本語.ts'])('accepts %j', (p) => {
    expect(FileChange.parse({ path: p, content: 'x' })).toEqual({ path: p, content: 'x' });
    expect(unsafePathReason(p)).toBeNull();
  });

  it('shows a NUL byte escaped, never raw, in the message', () => {
    expect(unsafePathReason('a\0b')).not.toContain('\0');
  });

  it('shows a line separator as the escape the model would have written', () => {
    expect(unsafePathReason('a\u2028b.py')).toBe('"a\\u2028b.py" contains a control character (U+2028); a path is printable text on one line');
  });

  it('requires content as a string (an empty file is fine)', () => {
    expect(FileChange.safeParse({ path: 'a.py' }).success).toBe(false);
    expect(FileChange.parse({ path: '__init__.py', content: '' }).content).toBe('');
  });
});

describe('Implementation', () => {
  it('defaults test_command to the seed default', () => {
    expect(DEFAULT_TEST_COMMAND).toBe('python -m pytest -q');
    expect(Implementation.parse(implementation()).test_command).toBe('python -m pytest -q');
  });

  it('keeps an explicit test_command but refuses an empty one', () => {
    expect(Implementation.parse(implementation({ test_command: 'pytest -x' })).test_command).toBe('pytest -x');
    expect(Implementation.safeParse(implementation({ test_command: '' })).success).toBe(false);
  });

  it('rejects zero files, saying why', () => {
    const r = Implementation.safeParse(implementation({ files: [] }));
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['files']);
    expect(r.error?.issues[0].message).toBe('an implementation must change at least one file (files) or delete one (deleted)');
  });

  it('takes deletions: a delete-only implementation is one, a deleted path is checked like a file path, and no path is both written and deleted', () => {
    expect(Implementation.parse(implementation({ files: [], deleted: ['old_dd.py'] })).deleted).toEqual(['old_dd.py']);
    const unsafe = Implementation.safeParse(implementation({ deleted: ['ok.py', '/etc/passwd'] }));
    expect(unsafe.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['deleted.1', expect.stringContaining('is absolute')]]);
    const both = Implementation.safeParse(implementation({ files: [{ path: 'dd.py', content: 'x' }], deleted: ['dd.py'] }));
    expect(both.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['deleted.0', '"dd.py" is both written (files) and deleted; keep one']]);
  });

  it('points at the offending file by index', () => {
    const r = Implementation.safeParse(implementation({ files: [{ path: 'ok.py', content: '' }, { path: '../evil.py', content: '' }] }));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['files.1.path']);
    expect(r.error?.issues[0].message).toContain('"../evil.py"');
  });

  it('requires notes, assumptions, known_gaps and a proposal_id', () => {
    const r = Implementation.safeParse({ files: [{ path: 'a.py', content: '' }] });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['assumptions', 'known_gaps', 'notes', 'proposal_id']);
  });
});
