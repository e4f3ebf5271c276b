import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { expandEnv, yamlSyntaxMessage, type ConfigIssue } from '@roundtable/contracts';

/** The project file could not be read, is not a YAML mapping or names an unset variable; the API never saw it. */
export class ProjectFileError extends Error {
  constructor(
    message: string,
    /** Field-level problems (dotted path as written in the file), when there are any. */
    readonly issues: ConfigIssue[] = [],
  ) {
    super(message);
  }
}

/**
 * Paths in a project file are relative to that file, but the services may run anywhere (and
 * in another working directory), so they are sent absolute. Variables are already expanded
 * by now (expandProjectVariables), so `repo: ${CODE}/app` resolves like any other path.
 */
export function resolveProjectPath(p: unknown, baseDir: string): unknown {
  if (typeof p !== 'string' || p === '') return p;
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

/** A `${` that expansion left behind: not `${NAME}` / `${NAME:-default}`, or brought in by a variable's value. */
const LEFT_OVER =
  'still holds "${" after expansion (only ${NAME} and ${NAME:-default} are expanded, once); the API refuses any "${", so rewrite the value or the variable it came from';

function leftOverIssues(value: unknown, at: string[], issues: ConfigIssue[]): void {
  if (typeof value === 'string') {
    if (value.includes('${')) issues.push({ path: at.join('.'), message: LEFT_OVER });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => leftOverIssues(v, [...at, String(i)], issues));
  } else if (isMapping(value)) {
    for (const [k, v] of Object.entries(value)) leftOverIssues(v, [...at, k], issues);
  }
}

/**
 * `${VAR}` and `${VAR:-default}` are the client's: the services expand nothing (a server's
 * environment holds its secrets), so they are expanded here, from the user's shell, with the
 * contracts' own expander. An unset variable without a default, or a `${` expansion cannot
 * account for, fails here with the field named, before anything is posted.
 */
export function expandProjectVariables(config: Mapping, env: Record<string, string | undefined>, file: string): Mapping {
  const issues: ConfigIssue[] = [];
  const expanded = expandEnv(config, [], env, issues) as Mapping;
  if (!issues.length) leftOverIssues(expanded, [], issues);
  if (issues.length) {
    const lines = issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`);
    throw new ProjectFileError(`${file}: not posted, a variable could not be expanded:\n${lines.join('\n')}`, issues);
  }
  return expanded;
}

/** Reads a project file as the API should receive it: parsed, variables expanded, paths made absolute. */
export function loadProjectFile(file: string, cwd: string = process.cwd(), env: Record<string, string | undefined> = process.env): Mapping {
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
    // One message, the position once: `bad.yaml: line 10, column 12: malformed YAML: …` (the quoting hint included).
    const what = err instanceof YAMLParseError ? yamlSyntaxMessage(text, err) : `malformed YAML: ${(err as Error).message.split('\n')[0]}`;
    throw new ProjectFileError(`${file}: ${what}`);
  }
  if (!isMapping(config)) {
    throw new ProjectFileError(`${file} is not a YAML mapping (project, objective, providers, agents …)`);
  }
  return resolveConfigPaths(expandProjectVariables(config, env, file), path.dirname(abs));
}
