import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { ConfigIssue, ProjectConfig } from '@roundtable/contracts';

async function problemWith(path: string, kind: 'file' | 'directory'): Promise<string | null> {
  try {
    const s = await stat(path);
    if (kind === 'file' && !s.isFile()) return `${path} is not a file`;
    if (kind === 'directory' && !s.isDirectory()) return `${path} is not a directory`;
    await access(path, constants.R_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `${path} does not exist on the server`;
    if (code === 'EACCES' || code === 'EPERM') return `${path} is not readable by the api service`;
    return `${path} cannot be read (${code ?? (e as Error).message})`;
  }
}

/**
 * The services read a replay cassette and the repo by the paths in the config; a path that
 * does not resolve on this machine would only fail minutes later inside a worker, so a
 * submission is refused now, naming the field and the path.
 */
export async function checkConfigPaths(cfg: Pick<ProjectConfig, 'providers'> & { repo?: ProjectConfig['repo'] }): Promise<ConfigIssue[]> {
  const checks: { field: string; path: string; kind: 'file' | 'directory' }[] = [];
  for (const [name, pc] of Object.entries(cfg.providers)) {
    if (pc.type === 'replay') checks.push({ field: `providers.${name}.cassette`, path: pc.cassette, kind: 'file' });
  }
  if (cfg.repo) checks.push({ field: 'repo', path: cfg.repo, kind: 'directory' });
  const results = await Promise.all(checks.map(async (c) => ({ c, problem: await problemWith(c.path, c.kind) })));
  return results.filter((r) => r.problem).map(({ c, problem }) => ({ path: c.field, message: problem as string }));
}
