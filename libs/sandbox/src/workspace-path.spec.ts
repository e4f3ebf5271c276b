import { lexicalPathProblem, pathSegments } from './workspace-path';

describe('lexicalPathProblem', () => {
  it.each([
    ['/etc/x', 'absolute path'],
    ['//x', 'absolute path'],
    ['../x', "contains '..'"],
    ['a/../../x', "contains '..'"],
    ['a/..', "contains '..'"],
    ['a\\b', 'contains a backslash'],
    ['..\\x', 'contains a backslash'],
    ['C:/x', 'drive letter'],
    ['c:x', 'drive letter'],
    ['', 'empty path'],
    ['   ', 'empty path'],
    ['.', 'empty path'],
    ['./', 'empty path'],
    ['a\0b', 'contains a NUL byte'],
    ['.git', 'is inside .git (repository metadata, not a workspace file)'],
    ['.git/hooks/pre-commit', 'is inside .git (repository metadata, not a workspace file)'],
    ['sub/.GIT/config', 'is inside .git (repository metadata, not a workspace file)'],
  ])('%j is refused: %s', (p, reason) => {
    expect(lexicalPathProblem(p)).toBe(reason);
  });

  it.each(['a.py', 'pkg/mod.py', './pkg//mod.py', '..hidden', 'a..b/c', '.github/workflows/ci.yml', '.gitignore', 'x.git/y'])('%j is accepted', (p) => {
    expect(lexicalPathProblem(p)).toBeNull();
  });
});

describe('pathSegments', () => {
  it('drops empty and "." segments', () => {
    expect(pathSegments('./a//b/./c')).toEqual(['a', 'b', 'c']);
  });
});
