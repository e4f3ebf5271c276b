const segments = (p: string) => p.split('/').filter(Boolean);

/**
 * Whether an absolute, already-resolved path is one of the roots or inside one, segment by
 * segment (`/srv/repos-other` is not under `/srv/repos`). Its own file: the policy schema needs
 * it too (a merge root must lie under a repo root), and the checks import the schema.
 */
export function pathUnderRoots(realPath: string, roots: readonly string[]): boolean {
  const have = segments(realPath);
  if (have.includes('..') || have.includes('.')) return false;
  return roots.some((root) => segments(root).every((s, i) => have[i] === s));
}
