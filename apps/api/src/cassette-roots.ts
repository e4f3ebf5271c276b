import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathUnderRoots } from '@roundtable/contracts';

/**
 * A relative replay cassette path in a posted project, looked up under the operator's cassette
 * roots (cassettes.roots), in their order: the first root whose `<root>/<relative>` is a file.
 * A path that climbs out of a root (`..`) is never looked up there; the real path of what is
 * found is judged against the roots again, as every cassette is (config-paths.check.ts).
 */
export function cassetteUnderRoots(roots: readonly string[]): (relative: string) => string | null {
  return (relative) => {
    for (const root of roots) {
      const candidate = path.resolve(root, relative);
      if (!pathUnderRoots(candidate, [root])) continue;
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    }
    return null;
  };
}
