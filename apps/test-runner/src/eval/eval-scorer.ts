// The eval scorer (issue 25): a cell's runs have ended; its answer is scored, once.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { HIDDEN_TESTS_DIR, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { RunEntity, runStatement } from '@roundtable/persistence';
import { listFileTree, readWorkspaceFiles, runDirectory, type TestRunner, type TestRunOutcome } from '@roundtable/sandbox';
import { pluralityAnswer } from '@roundtable/workflow';
import { CLAIM_CELL, FINISH_EVAL_IF_SCORED, RELEASE_CELL, SELECT_CELL_RUNS, SELECT_SCORING_CELL, UPDATE_CELL_SCORE, type CellRunRow, type CellScore, type ScoringCellRow } from './eval-cell.sql';

/** What the scorer uses of WorkspaceOpsService: the database, the workspace root, the run's admitted runner, a command in it. */
export interface EvalScorerHost {
  ds: DataSource;
  workspaceRoot: string;
  outputTail: number;
  admittedRunner(run: RunEntity, timeoutS: number): Promise<TestRunner>;
  runIn(runner: TestRunner, workspace: string, command: string, timeoutS: number, runId: string): Promise<TestRunOutcome>;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);
/** How long the hidden tests may run: a small task's tests take seconds. */
const HIDDEN_TIMEOUT_S = 120;
/** A workspace's files read for the scoring copy (and a vote's comparison): a task's answer is a few files. */
const MAX_FILES = 500;
const MAX_BYTES_PER_FILE = 1024 * 1024;
/** How long a scorer holds a cell before another ask may take it (it died): well past the hidden tests' timeout. */
const CLAIM_LEASE_S = HIDDEN_TIMEOUT_S * 5;

/**
 * Scores the cell when every one of its runs has ended (a vote's cell is asked once per sample;
 * the ask that finds one still going does nothing). `hidden_tests`: the chosen run's final
 * workspace is copied to `<root>/<run>/eval-score` — never the workspace itself — the hidden tests
 * are written there under `.eval_hidden/`, and the task's hidden command runs in the run's own
 * admitted sandbox; passed = exit code 0. `verdict`: the panel's recommendation against the
 * reference. A vote scores the plurality answer of its samples (libs/workflow pluralityAnswer).
 * The usage is what the cell's runs recorded. One scorer at a time holds the cell (a claim with a
 * lease), and the row is written once (UPDATE … WHERE running).
 */
export async function scoreEvalCell(host: EvalScorerHost, cellId: string): Promise<void> {
  const cell = (await runStatement(host.ds, SELECT_SCORING_CELL, cellId)).rows[0];
  if (!cell || cell.status !== 'running') return;
  const runs = (await runStatement(host.ds, SELECT_CELL_RUNS, cellId)).rows;
  if (runs.length === 0 || runs.some((r) => !TERMINAL.has(r.status))) return;
  // A vote's samples end together and each asks: one scorer at a time, or two would share the scoring copy.
  if ((await runStatement(host.ds, CLAIM_CELL, cellId, CLAIM_LEASE_S)).rows.length === 0) return;
  try {
    await scoreClaimed(host, cell, runs);
  } catch (e) {
    await runStatement(host.ds, RELEASE_CELL, cellId);
    throw e;
  }
}

async function scoreClaimed(host: EvalScorerHost, cell: ScoringCellRow, runs: CellRunRow[]): Promise<void> {
  const cellId = cell.id;
  const usage = usageOf(runs);
  let score: CellScore;
  try {
    const outcome = cell.score === 'verdict' ? scoreVerdict(cell, runs) : await scoreHiddenTests(host, cell, runs);
    score = { cellId, status: 'scored', ...usage, ...outcome };
  } catch (e) {
    // Refused by the policy, no sandbox, an unreadable workspace: not the answer's fault, so not a fail.
    score = { cellId, status: 'error', chosenRunId: null, passed: null, reason: `not scored: ${(e as Error).message}`, detail: {}, ...usage };
  }
  await runStatement(host.ds, UPDATE_CELL_SCORE, score);
  await runStatement(host.ds, FINISH_EVAL_IF_SCORED, cell.eval_id);
}

type Outcome = Pick<CellScore, 'chosenRunId' | 'passed' | 'reason' | 'detail'>;

function usageOf(runs: CellRunRow[]): Pick<CellScore, 'tokens' | 'costUsd' | 'seconds'> {
  const starts = runs.map((r) => (r.started_at ?? r.created_at).getTime());
  const ends = runs.map((r) => (r.finished_at ?? r.started_at ?? r.created_at).getTime());
  return {
    tokens: runs.reduce((n, r) => n + Number(r.tokens), 0),
    costUsd: runs.reduce((n, r) => n + Number(r.cost_usd), 0),
    seconds: Math.max(0, (Math.max(...ends) - Math.min(...starts)) / 1000),
  };
}

function scoreVerdict(cell: ScoringCellRow, runs: CellRunRow[]): Outcome {
  const reference = String(cell.spec.reference);
  const run = runs[0];
  const verdict = run.verdict;
  return {
    chosenRunId: run.id,
    passed: verdict === reference,
    reason: verdict ? `verdict ${verdict}, reference ${reference}` : `no verdict (run ${run.status}), reference ${reference}`,
    detail: { verdict, reference, run_status: run.status },
  };
}

/** A workspace's files, as a vote compares them and the scoring copy takes them; none when the run made no workspace. */
async function filesOf(host: EvalScorerHost, runId: string): Promise<Record<string, string> | null> {
  const ws = path.join(runDirectory(host.workspaceRoot, runId), 'workspace');
  const paths = await listFileTree(ws, { maxEntries: MAX_FILES }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (paths === null) return null;
  const read = await readWorkspaceFiles(ws, paths, { maxBytesPerFile: MAX_BYTES_PER_FILE });
  return Object.fromEntries(read.map((f) => [f.path, f.content]));
}

async function scoreHiddenTests(host: EvalScorerHost, cell: ScoringCellRow, runs: CellRunRow[]): Promise<Outcome> {
  const answers = await Promise.all(runs.map(async (r, index) => ({ runId: r.id, index, files: await filesOf(host, r.id) })));
  const vote = runs.length > 1 ? pluralityAnswer(answers.map((a) => ({ ...a, files: a.files ?? {} }))) : null;
  const chosen = answers.find((a) => a.runId === (vote?.runId ?? runs[0].id))!;
  const voteDetail = vote ? { vote: { votes: vote.votes, of: vote.of } } : {};
  if (!chosen.files || Object.keys(chosen.files).length === 0) {
    return { chosenRunId: chosen.runId, passed: false, reason: 'no answer: the run wrote no files', detail: voteDetail };
  }
  const run = await host.ds.getRepository(RunEntity).findOneByOrFail({ id: chosen.runId });
  const runner = await host.admittedRunner(run, HIDDEN_TIMEOUT_S);
  const copy = await scoringCopy(host.workspaceRoot, chosen.runId, chosen.files, cell.hidden ?? []);
  const command = String(cell.spec.hidden_command);
  const outcome = await host.runIn(runner, copy, command, HIDDEN_TIMEOUT_S, chosen.runId);
  const passed = outcome.exit_code === 0 && !outcome.timed_out;
  return {
    chosenRunId: chosen.runId,
    passed,
    reason: `hidden tests: ${summaryLine(outcome)}`,
    detail: { ...voteDetail, command, exit_code: outcome.exit_code, timed_out: outcome.timed_out, passed: outcome.passed, failed: outcome.failed, output_tail: outcome.output.slice(-host.outputTail), runner: runner.kind },
  };
}

/** `<root>/<run>/eval-score`, made afresh: the answer's files, and the hidden tests under `.eval_hidden/`. */
async function scoringCopy(root: string, runId: string, files: Record<string, string>, hidden: { path: string; content: string }[]): Promise<string> {
  const dir = path.join(runDirectory(root, runId), 'eval-score');
  await rm(dir, { recursive: true, force: true });
  const write = async (rel: string, content: string) => {
    const target = path.join(dir, rel);
    // The paths come from listFileTree (the workspace's own) and the request's schema (no "..", relative): checked again, cheaply.
    if (!target.startsWith(`${dir}${path.sep}`)) throw new Error(`refused path ${JSON.stringify(rel)}: outside the scoring copy`);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  };
  await mkdir(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    if (rel === HIDDEN_TESTS_DIR || rel.startsWith(`${HIDDEN_TESTS_DIR}/`)) continue; // an answer cannot plant its own "hidden" tests
    await write(rel, content);
  }
  for (const f of hidden) await write(path.posix.join(HIDDEN_TESTS_DIR, f.path), f.content);
  return dir;
}

/** pytest's own summary when it printed one ("5 passed, 1 failed in 0.12s"), else the counts and the exit code. */
function summaryLine(o: TestRunOutcome): string {
  if (o.timed_out) return `timed out after ${HIDDEN_TIMEOUT_S}s`;
  const line = o.output
    .split('\n')
    .map((l) => l.replace(/=+/g, '').trim())
    .reverse()
    .find((l) => /\b(passed|failed|error|no tests ran)\b/.test(l));
  return line ?? `exit ${o.exit_code}, ${o.passed} passed, ${o.failed} failed`;
}
