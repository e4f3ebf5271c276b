import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The project file could not be read or is not a YAML mapping; the API never saw it. */
export class ProjectFileError extends Error {}

/**
 * Paths in a project file are relative to that file, but the services may run anywhere (and
 * in another working directory), so they are sent absolute. `${VAR}` values are left for
 * the API to expand with its own environment.
 */
export function resolveProjectPath(p: unknown, baseDir: string): unknown {
  if (typeof p !== 'string' || p === '' || p.includes('${')) return p;
  if (p === '~' || p.startsWith('~/')) return path.join(homedir(), p.slice(1));
  return path.resolve(baseDir, p);
}

type Mapping = Record<string, unknown>;
const isMapping = (v: unknown): v is Mapping => !!v && typeof v === 'object' && !Array.isArray(v);

/** Resolves `repo` (top level, or under a `project:` mapping as in the seed) and every replay cassette. */
export function resolveConfigPaths(config: Mapping, baseDir: string): Mapping {
  if (typeof config.repo === 'string') config.repo = resolveProjectPath(config.repo, baseDir);
  if (isMapping(config.project) && typeof config.project.repo === 'string') {
    config.project.repo = resolveProjectPath(config.project.repo, baseDir);
  }
  if (isMapping(config.providers)) {
    for (const provider of Object.values(config.providers)) {
      if (isMapping(provider) && provider.type === 'replay' && typeof provider.cassette === 'string') {
        provider.cassette = resolveProjectPath(provider.cassette, baseDir);
      }
    }
  }
  return config;
}

/** Reads a project file as the API should receive it: parsed, with its paths made absolute. */
export function loadProjectFile(file: string, cwd: string = process.cwd()): Mapping {
  const abs = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ProjectFileError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch (err) {
    throw new ProjectFileError(`${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isMapping(config)) {
    throw new ProjectFileError(`${file} is not a YAML mapping (project, objective, providers, agents …)`);
  }
  return resolveConfigPaths(config, path.dirname(abs));
}
