import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { yamlSyntaxMessage, zodIssuesToConfigIssues } from '../config/load-project-config';
import { CodingTaskRequest, PanelIdeaTaskRequest } from './eval-request.schema';
import { CodingTaskFile, EvalSuiteFile, PanelIdeaTaskFile } from './eval-suite.schema';

/**
 * Reads an evaluation suite from disk (`evals/<suite>/`, see evals/README.md) for the CLI, which
 * sends its tasks to the api, and for the suites' own checks. Every problem is reported at once,
 * each naming the file and the field, so a suite's author fixes it in one pass.
 */

/** A coding task as read: its file, where it lies, and the files beside it. */
export interface LoadedCodingTask {
  task: CodingTaskFile;
  /** The task's directory (absolute). */
  dir: string;
  /** The task's `starter/` (absolute), or null when the run starts from an empty repository. */
  starter: string | null;
  /** The hidden tests, paths relative to `hidden/`, sorted by path. */
  hidden: { path: string; content: string }[];
  /** `solutions/good` and `solutions/flawed` (path relative to each → content), or null when the task ships none. */
  solutions: { good: Record<string, string>; flawed: Record<string, string> } | null;
}

export type LoadedEvalSuite = { dir: string; suite: EvalSuiteFile } & (
  | { score: 'hidden_tests'; tasks: LoadedCodingTask[] }
  | { score: 'verdict'; tasks: PanelIdeaTaskFile[] }
);
export type LoadedCodingSuite = Extract<LoadedEvalSuite, { score: 'hidden_tests' }>;
export type LoadedVerdictSuite = Extract<LoadedEvalSuite, { score: 'verdict' }>;

/** One problem in a suite: the file (relative to the suite's directory), the field, what to do. */
export interface EvalSuiteIssue {
  file: string;
  path: string;
  message: string;
}

export class EvalSuiteError extends Error {
  readonly code = 'INVALID_EVAL_SUITE';
  constructor(
    readonly dir: string,
    readonly issues: EvalSuiteIssue[],
  ) {
    super(`invalid eval suite ${dir}:\n${issues.map((i) => `  - ${i.file}${i.path ? ` ${i.path}` : ''}: ${i.message}`).join('\n')}`);
  }
}

export const SUITE_FILE = 'suite.yaml';
export const TASK_FILE = 'task.yaml';

/** Left by running a solution's tests in place; never part of a suite. */
const IGNORED_DIRS = new Set(['__pycache__', '.pytest_cache']);

function readYaml(path: string, file: string, issues: EvalSuiteIssue[]): unknown {
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (e) {
    issues.push({ file, path: '', message: `cannot be read: ${(e as Error).message}` });
    return undefined;
  }
  try {
    return parseYaml(source);
  } catch (e) {
    issues.push({ file, path: '', message: e instanceof YAMLParseError ? yamlSyntaxMessage(source, e) : `malformed YAML: ${(e as Error).message.split('\n')[0]}` });
    return undefined;
  }
}

function parseWith<S extends z.ZodType>(schema: S, raw: unknown, file: string, issues: EvalSuiteIssue[]): z.infer<S> | null {
  if (raw === undefined) return null; // already reported by readYaml
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  issues.push(...zodIssuesToConfigIssues(parsed.error).map((i) => ({ file, path: i.path, message: i.message })));
  return null;
}

const isDir = (p: string): boolean => existsSync(p) && statSync(p).isDirectory();

/** Every regular file under `dir`, as path relative to it → content, sorted by path. */
export function readSuiteFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!IGNORED_DIRS.has(entry.name)) walk(rel);
      } else if (entry.isFile() && !entry.name.endsWith('.pyc')) {
        out[rel] = readFileSync(join(dir, rel), 'utf8');
      }
    }
  };
  walk('');
  return out;
}

function loadCodingTask(suiteDir: string, id: string, issues: EvalSuiteIssue[]): LoadedCodingTask | null {
  const dir = join(suiteDir, id);
  const file = `${id}/${TASK_FILE}`;
  if (!existsSync(join(dir, TASK_FILE))) {
    issues.push({ file, path: '', message: `is missing; every directory of a hidden_tests suite is a task and holds ${TASK_FILE}` });
    return null;
  }
  const task = parseWith(CodingTaskFile, readYaml(join(dir, TASK_FILE), file, issues), file, issues);
  if (task && task.id !== id) {
    issues.push({ file, path: 'id', message: `is "${task.id}", but the task's directory is ${id}; a task's id is its directory name` });
  }
  let hidden: LoadedCodingTask['hidden'] = [];
  if (!isDir(join(dir, 'hidden'))) {
    issues.push({ file: `${id}/hidden/`, path: '', message: `is missing; task ${id} needs its hidden tests in hidden/` });
  } else {
    hidden = Object.entries(readSuiteFiles(join(dir, 'hidden'))).map(([path, content]) => ({ path, content }));
    if (hidden.length === 0) issues.push({ file: `${id}/hidden/`, path: '', message: `is empty; task ${id} needs at least one hidden test file` });
  }
  let solutions: LoadedCodingTask['solutions'] = null;
  if (isDir(join(dir, 'solutions'))) {
    const tree = (kind: 'good' | 'flawed'): Record<string, string> => {
      const p = join(dir, 'solutions', kind);
      const files = isDir(p) ? readSuiteFiles(p) : {};
      if (Object.keys(files).length === 0) {
        issues.push({ file: `${id}/solutions/${kind}/`, path: '', message: `is missing or empty; task ${id}'s solutions/ holds both good/ and flawed/` });
      }
      return files;
    };
    solutions = { good: tree('good'), flawed: tree('flawed') };
  }
  const starter = isDir(join(dir, 'starter')) ? join(dir, 'starter') : null;
  if (!task) return null;
  const loaded: LoadedCodingTask = { task, dir, starter, hidden, solutions };
  // What the CLI will send must be a valid request too (hidden paths, sizes, count): said here, naming the task.
  if (hidden.length) {
    const asRequest = CodingTaskRequest.safeParse(codingRequest(loaded));
    if (!asRequest.success) {
      issues.push(...zodIssuesToConfigIssues(asRequest.error).map((i) => ({ file: `${id}/hidden/`, path: i.path, message: i.message })));
    }
  }
  return loaded;
}

function loadIdeaTask(suiteDir: string, name: string, issues: EvalSuiteIssue[]): PanelIdeaTaskFile | null {
  const id = name.replace(/\.ya?ml$/, '');
  const task = parseWith(PanelIdeaTaskFile, readYaml(join(suiteDir, name), name, issues), name, issues);
  if (task && task.id !== id) {
    issues.push({ file: name, path: 'id', message: `is "${task.id}", but the file is ${name}; an idea's id is its file name without .yaml` });
  }
  return task;
}

/**
 * Reads `dir/suite.yaml` and its tasks, sorted by id: a `hidden_tests` suite's task directories
 * (task.yaml, hidden/, optional starter/ and solutions/), a `verdict` suite's idea files. Throws
 * EvalSuiteError listing every problem.
 */
export function loadEvalSuite(dir: string): LoadedEvalSuite {
  const root = resolve(dir);
  const issues: EvalSuiteIssue[] = [];
  const fail = (): never => {
    throw new EvalSuiteError(root, issues);
  };
  if (!isDir(root)) {
    issues.push({ file: root, path: '', message: 'is not a directory; an eval suite is a directory holding suite.yaml' });
    fail();
  }
  if (!existsSync(join(root, SUITE_FILE))) {
    issues.push({ file: SUITE_FILE, path: '', message: `is missing; an eval suite's directory holds ${SUITE_FILE} (name, description, score)` });
    fail();
  }
  const suite = parseWith(EvalSuiteFile, readYaml(join(root, SUITE_FILE), SUITE_FILE, issues), SUITE_FILE, issues);
  if (!suite) return fail();
  if (suite.name !== basename(root)) {
    issues.push({ file: SUITE_FILE, path: 'name', message: `is "${suite.name}", but the suite's directory is ${basename(root)}; a suite's name is its directory name` });
  }
  const entries = readdirSync(root, { withFileTypes: true }).filter((e) => !e.name.startsWith('.') && !IGNORED_DIRS.has(e.name));
  if (suite.score === 'hidden_tests') {
    const ids = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    const tasks = ids.map((id) => loadCodingTask(root, id, issues)).filter((t): t is LoadedCodingTask => t !== null);
    if (ids.length === 0) issues.push({ file: root, path: '', message: 'holds no task; a hidden_tests suite has one directory per task' });
    if (issues.length) fail();
    return { dir: root, suite, score: 'hidden_tests', tasks };
  }
  const names = entries.filter((e) => e.isFile() && /\.ya?ml$/.test(e.name) && e.name !== SUITE_FILE).map((e) => e.name).sort();
  const tasks = names.map((name) => loadIdeaTask(root, name, issues)).filter((t): t is PanelIdeaTaskFile => t !== null);
  if (names.length === 0) issues.push({ file: root, path: '', message: 'holds no idea; a verdict suite has one <id>.yaml per idea' });
  if (issues.length) fail();
  return { dir: root, suite, score: 'verdict', tasks: tasks.sort((a, b) => a.id.localeCompare(b.id)) };
}

function codingRequest(t: LoadedCodingTask): CodingTaskRequest {
  const { id, difficulty, objective, requirements, test_command, hidden_command } = t.task;
  return { id, difficulty, objective, requirements, test_command, hidden_command, starter: t.starter, hidden: t.hidden.map((h) => ({ ...h })) };
}

/** The tasks as `POST /v1/evals` carries them (the hidden tests' paths relative to hidden/; a starter as its absolute path). */
export function evalRequestTasks(loaded: LoadedCodingSuite): CodingTaskRequest[];
export function evalRequestTasks(loaded: LoadedVerdictSuite): PanelIdeaTaskRequest[];
export function evalRequestTasks(loaded: LoadedEvalSuite): CodingTaskRequest[] | PanelIdeaTaskRequest[];
export function evalRequestTasks(loaded: LoadedEvalSuite): CodingTaskRequest[] | PanelIdeaTaskRequest[] {
  if (loaded.score === 'hidden_tests') return loaded.tasks.map(codingRequest);
  return loaded.tasks.map(({ id, difficulty, idea, reference }) => PanelIdeaTaskRequest.parse({ id, difficulty, idea, reference }));
}

/** The suites under `evalsDir`: its directories holding suite.yaml, sorted. */
export function listEvalSuites(evalsDir: string): string[] {
  if (!isDir(evalsDir)) return [];
  return readdirSync(evalsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(evalsDir, e.name, SUITE_FILE)))
    .map((e) => e.name)
    .sort();
}

/**
 * A suite named on the command line: a bare name (`coding`) is a directory of `evalsDir`; anything
 * with a slash or starting with `.` is a path (relative to the working directory). Returns the
 * suite's absolute directory; an unknown name is an error listing the suites found.
 */
export function findEvalSuite(nameOrPath: string, evalsDir: string): string {
  const asPath = nameOrPath.includes('/') || nameOrPath.startsWith('.') || isAbsolute(nameOrPath);
  const dir = asPath ? resolve(nameOrPath) : resolve(evalsDir, nameOrPath);
  if (existsSync(join(dir, SUITE_FILE))) return dir;
  const found = listEvalSuites(evalsDir);
  const where = asPath ? `${nameOrPath} holds no ${SUITE_FILE}` : `no eval suite "${nameOrPath}" in ${relative(process.cwd(), resolve(evalsDir)) || '.'}`;
  const known = found.length ? `suites found: ${found.join(', ')}` : `no suite found in ${resolve(evalsDir)}`;
  throw new EvalSuiteError(dir, [{ file: nameOrPath, path: '', message: `${where}; ${known} (or give the path of a directory holding ${SUITE_FILE})` }]);
}
