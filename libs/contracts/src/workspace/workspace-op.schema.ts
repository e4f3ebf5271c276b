import { z } from 'zod';
import { ToolCall } from '../agent/tool-call.schema';

/**
 * A `workspace_ops` row's `result` column, typed. The row is a request from the orchestrator
 * to the test-runner and, once done, the test-runner's answer to it: the orchestrator writes
 * the request (tests and read ops carry one; prepare and apply take theirs from the run and
 * the implementation rows), the test-runner writes the result over it (keeping the request's
 * fields). The writer validates what it writes (workspaceOpResult), and every reader parses
 * what it reads (parseWorkspaceOp): a bad row is an error naming the op, never a guess.
 */
export const WORKSPACE_OP_KIND = ['prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export', 'experiment'] as const;
export type WorkspaceOpKindName = (typeof WORKSPACE_OP_KIND)[number];

const Paths = z.array(z.string());

/** What a tests op asks for; the test-runner's answer keeps the label, so the orchestrator can record the test run. */
export const TestsOpRequest = z.object({
  command: z.string().min(1),
  timeoutS: z.number().positive(),
  /** The label the test run gets (T1, T2 …), chosen by the workflow. */
  testLabel: z.string().min(1),
});
export type TestsOpRequest = z.infer<typeof TestsOpRequest>;

/** What a read op asks for: the files a role named (reading before writing), and for whom. */
export const ReadOpRequest = z.object({
  label: z.string().min(1),
  role: z.string().min(1),
  call_id: z.string().min(1),
  paths: Paths,
  reason: z.string().nullable(),
  /** Paths the workflow refused before asking (outside the workspace, too many). */
  refused: Paths.optional(),
  max_bytes_per_file: z.number().int().positive().optional(),
});
export type ReadOpRequest = z.infer<typeof ReadOpRequest>;

/**
 * The approver a merge op names when no person approved it: a solved run at autonomy 3. Token
 * names hold no spaces (API_TOKENS), so no token can pass for it.
 */
export const AUTONOMOUS_APPROVER = 'autonomy 3';

/** What a merge op asks for: the run branch into `into` of the original repository (issue 21), never forced. */
export const MergeOpRequest = z.object({
  into: z.string().min(1),
  strategy: z.enum(['ff', 'merge', 'squash']),
  /** The merge (or squash) commit's message. */
  message: z.string().min(1),
  /** Who approved it (the api token's name), or `autonomy 3`: it goes in the commit message's trailer. */
  approved_by: z.string().min(1),
});
export type MergeOpRequest = z.infer<typeof MergeOpRequest>;

/**
 * The test-runner's answer: merged (the target's new tip and the one it had), or refused with
 * the reason and the original untouched. A refusal is an answer, not a failed op.
 */
export const MergeOpResult = MergeOpRequest.extend({
  merged: z.boolean(),
  commit: z.string().nullable(),
  previous: z.string().nullable(),
  reason: z.string().nullable(),
  code: z.string().nullable(),
});
export type MergeOpResult = z.infer<typeof MergeOpResult>;

/**
 * What a tool op asks for (issue 21): the tools one turn of an agent-mode engineer called, run
 * by the test-runner in the run's worktree, in order. `collect`: the turn called finish, so
 * the test-runner also says what changed (`git add -A && git diff --cached`) for the
 * Implementation. The test settings are the run's, copied so the op says what ran.
 */
export const ToolOpRequest = z.object({
  /** The implementation the loop makes (I1, I1f1) and the turn that called the tools. */
  label: z.string().min(1),
  turn: z.number().int().positive(),
  call_id: z.string().min(1),
  calls: z.array(ToolCall),
  collect: z.boolean(),
  test_command: z.string().min(1),
  test_timeout_s: z.number().positive(),
});
export type ToolOpRequest = z.infer<typeof ToolOpRequest>;

/** One tool's result as the model is shown it: text, and whether the tool refused or failed. */
export const ToolResult = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  content: z.string(),
  is_error: z.boolean(),
});
export type ToolResult = z.infer<typeof ToolResult>;

/** What changed in the worktree once the loop finished: the Implementation's files and deletions. */
export const ToolOpChanges = z.object({
  files: z.array(z.object({ path: z.string(), content: z.string() })),
  deleted: z.array(z.string()),
  /** Changed, but not inlinable as a file (binary, over the size cap, not a regular file): the commit still has them. */
  not_inlined: z.array(z.string()),
  diff_artifact_id: z.string().nullable(),
});
export type ToolOpChanges = z.infer<typeof ToolOpChanges>;

export const ToolOpResult = ToolOpRequest.extend({
  results: z.array(ToolResult),
  changes: ToolOpChanges.nullable(),
});
export type ToolOpResult = z.infer<typeof ToolOpResult>;

/**
 * The export op's answer (issue 21): a run that cannot be merged (a greenfield run, a copy of a
 * plain directory) offers its branch as a git bundle and a patch, two artifacts holding the
 * bytes base64. A worktree's branch is in the original repository already: nothing is exported.
 */
export const ExportOpResult = z.object({
  exported: z.boolean(),
  reason: z.string().nullable(),
  branch: z.string().nullable(),
  bundle_artifact_id: z.string().nullable(),
  patch_artifact_id: z.string().nullable(),
});
export type ExportOpResult = z.infer<typeof ExportOpResult>;

/** One file of a read op's answer: its content, or why there is none. */
export const ReadOpFile = z.object({
  path: z.string(),
  content: z.string().nullable(),
  bytes: z.number().int().nonnegative().nullable(),
  truncated: z.boolean(),
  error: z.string().nullable(),
});
export type ReadOpFile = z.infer<typeof ReadOpFile>;

export const DiffStat = z.object({ path: z.string(), added: z.number().int().nullable(), deleted: z.number().int().nullable() });

/** Where a run's workspace came from (libs/sandbox's WorkspaceSource). */
export const WorkspaceOrigin = z.enum(['worktree', 'copy', 'empty']);

/**
 * A prepared workspace. Only path and tree are read by the workflow; the rest is what the user
 * is shown about how it was made (rows written before git workspaces have only path and tree).
 */
export const PrepareOpResult = z.object({
  path: z.string().min(1),
  tree: Paths,
  source: WorkspaceOrigin.optional(),
  origin: z.string().nullable().optional(),
  branch: z.string().nullable().optional(),
  base_commit: z.string().nullable().optional(),
  notes: z.array(z.string()).optional(),
});
export type PrepareOpResult = z.infer<typeof PrepareOpResult>;

/** The round committed on the run branch (`roundtable/<runId>`), and the cumulative diff stored as an artifact. */
export const ApplyOpCommit = z.object({
  workspace_source: WorkspaceOrigin,
  branch: z.string().min(1),
  base_commit: z.string().min(1),
  commit: z.string().min(1),
  committed: z.boolean(),
  diffstat: z.array(DiffStat),
  round_diffstat: z.array(DiffStat),
  diff_artifact_id: z.string().min(1),
  diff_truncated: z.boolean().optional(),
});
export type ApplyOpCommit = z.infer<typeof ApplyOpCommit>;

/** Files written (and deleted) for an implementation; the commit's fields only when the workspace has git. */
export const ApplyOpResult = z
  .object({
    written: Paths,
    deleted: Paths.optional(),
    /** Deletions asked for of files already gone (a repeated job). */
    not_there: Paths.optional(),
    tree: Paths,
    artifact_ids: z.array(z.string()),
  })
  .extend(ApplyOpCommit.partial().shape)
  .superRefine((r, ctx) => {
    // All of the commit or none of it: a half-recorded commit would show a diff of nothing.
    const present = Object.keys(ApplyOpCommit.shape).filter((k) => k !== 'diff_truncated' && (r as Record<string, unknown>)[k] !== undefined);
    if (present.length && present.length < Object.keys(ApplyOpCommit.shape).length - 1) {
      const missing = Object.keys(ApplyOpCommit.shape).filter((k) => k !== 'diff_truncated' && !present.includes(k));
      ctx.addIssue({ code: 'custom', path: [missing[0]], message: `a committed round records all of ${missing.join(', ')} too` });
    }
  });
export type ApplyOpResult = z.infer<typeof ApplyOpResult>;

/** The request, answered: one entry per asked path, in order. */
export const ReadOpResult = ReadOpRequest.extend({ files: z.array(ReadOpFile) });
export type ReadOpResult = z.infer<typeof ReadOpResult>;

/** The measured test run (never a model's counts), beside the request it answers. */
export const TestsOpResult = TestsOpRequest.extend({
  exit_code: z.number().int(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  duration_s: z.number().nonnegative(),
  timed_out: z.boolean(),
  oom_killed: z.boolean().optional(),
  output_artifact_id: z.string().nullable(),
  output_tail: z.string(),
  /** test_runs.runner: 'docker' or 'process'. */
  runner: z.string().min(1),
});
export type TestsOpResult = z.infer<typeof TestsOpResult>;

/**
 * What an experiment op asks for (issue 24): the preregistered command of experiment
 * `experiment_id`, run in the sandbox in a worktree of `repo` at the pinned `commit`, and the
 * metrics it must report. `prereg_hash` is the hash the orchestrator read when it queued the op;
 * the test-runner refuses when the experiment row no longer carries (or no longer hashes to) it.
 */
export const ExperimentOpRequest = z.object({
  experiment_id: z.string().min(1),
  prereg_hash: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 hex digest (64 lowercase hex digits)'),
  repo: z.string().min(1),
  commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'a commit id (7 to 40 lowercase hex digits)'),
  command: z.string().min(1),
  /** The names of the metrics the command must report, each a finite number. */
  metrics: z.array(z.string().min(1)),
  timeout_s: z.number().positive(),
});
export type ExperimentOpRequest = z.infer<typeof ExperimentOpRequest>;

/**
 * The measured run of an experiment's command. `metrics`: every declared metric, numbers, or
 * null with `metrics_error` saying what was missing or non-numeric, where none were found, or
 * that the command exited non-zero. `metrics_source`: the metrics file ($ROUNDTABLE_METRICS) or
 * the last JSON object line of the output.
 */
export const ExperimentOpResult = z.object({
  experiment_id: z.string().min(1),
  prereg_hash: z.string().min(1),
  commit: z.string().min(1),
  command: z.string().min(1),
  exit_code: z.number().int(),
  duration_s: z.number().nonnegative(),
  timed_out: z.boolean(),
  oom_killed: z.boolean(),
  metrics: z.record(z.string(), z.number()).nullable(),
  metrics_error: z.string().nullable(),
  metrics_source: z.enum(['file', 'stdout']).nullable(),
  output_artifact_id: z.string().min(1),
  output_tail: z.string(),
  /** 'docker' or 'process'. */
  runner: z.string().min(1),
});
export type ExperimentOpResult = z.infer<typeof ExperimentOpResult>;

const REQUESTS = { prepare: z.null(), apply: z.null(), tests: TestsOpRequest, read: ReadOpRequest, merge: MergeOpRequest, tool: ToolOpRequest, export: z.null(), experiment: ExperimentOpRequest } as const;
const RESULTS = { prepare: PrepareOpResult, apply: ApplyOpResult, tests: TestsOpResult, read: ReadOpResult, merge: MergeOpResult, tool: ToolOpResult, export: ExportOpResult, experiment: ExperimentOpResult } as const;

type Requests = { [K in WorkspaceOpKindName]: z.infer<(typeof REQUESTS)[K]> };
type Results = { [K in WorkspaceOpKindName]: z.infer<(typeof RESULTS)[K]> };

/**
 * A workspace op as its row says, parsed: `queued` and `failed` rows hold the request (null for
 * prepare and apply), `done` rows the result. Discriminated on kind and status.
 */
export type ParsedWorkspaceOp = {
  [K in WorkspaceOpKindName]:
    | { id: string; kind: K; status: 'queued' | 'failed'; error: string | null; request: Requests[K] }
    | { id: string; kind: K; status: 'done'; error: string | null; result: Results[K] };
}[WorkspaceOpKindName];

/** A workspace_ops row whose result is not what its kind and status say: names the op and the field. */
export class WorkspaceOpRowError extends Error {
  constructor(
    readonly opId: string,
    readonly kind: string,
    readonly field: string,
    detail: string,
  ) {
    super(`workspace op ${opId} (${kind}): ${field}: ${detail}`);
    this.name = 'WorkspaceOpRowError';
  }
}

function issueOf(opId: string, kind: string, error: z.ZodError): WorkspaceOpRowError {
  const issue = error.issues[0];
  return new WorkspaceOpRowError(opId, kind, ['result', ...issue.path.map(String)].join('.'), issue.message);
}

function kindOf(op: { id: string; kind: string }): WorkspaceOpKindName {
  if (!(WORKSPACE_OP_KIND as readonly string[]).includes(op.kind)) throw new WorkspaceOpRowError(op.id, op.kind, 'kind', `not one of ${WORKSPACE_OP_KIND.join(', ')}`);
  return op.kind as WorkspaceOpKindName;
}

/** Parses a row as read (any reader: the orchestrator, the workflow's state, the test-runner). */
export function parseWorkspaceOp(op: { id: string; kind: string; status: string; error?: string | null; result: unknown }): ParsedWorkspaceOp {
  const kind = kindOf(op);
  const error = op.error ?? null;
  if (op.status === 'done') {
    const parsed = RESULTS[kind].safeParse(op.result);
    if (!parsed.success) throw issueOf(op.id, kind, parsed.error);
    return { id: op.id, kind, status: 'done', error, result: parsed.data } as ParsedWorkspaceOp;
  }
  if (op.status !== 'queued' && op.status !== 'failed') throw new WorkspaceOpRowError(op.id, kind, 'status', `${JSON.stringify(op.status)} is not queued, done or failed`);
  const parsed = REQUESTS[kind].safeParse(REQUESTS[kind] instanceof z.ZodNull ? (op.result ?? null) : op.result);
  if (!parsed.success) throw issueOf(op.id, kind, parsed.error);
  return { id: op.id, kind, status: op.status, error, request: parsed.data } as ParsedWorkspaceOp;
}

/** The request of a queued op, parsed for the test-runner that is about to act on it. */
export function workspaceOpRequest<K extends WorkspaceOpKindName>(kind: K, op: { id: string; result: unknown }): Requests[K] {
  const parsed = REQUESTS[kind].safeParse(REQUESTS[kind] instanceof z.ZodNull ? (op.result ?? null) : op.result);
  if (!parsed.success) throw issueOf(op.id, kind, parsed.error);
  return parsed.data as Requests[K];
}

/** What the test-runner is about to write on a done op, checked first (unknown keys dropped). */
export function workspaceOpResult<K extends WorkspaceOpKindName>(kind: K, opId: string, value: unknown): Results[K] {
  const parsed = RESULTS[kind].safeParse(value);
  if (!parsed.success) throw issueOf(opId, kind, parsed.error);
  return parsed.data as Results[K];
}

/**
 * The files of a read op: null while it is queued. A read the test-runner could not do at all
 * (no workspace) still answers every path, with the reason, so the role is asked again.
 */
export function readOpFiles(op: ParsedWorkspaceOp & { kind: 'read' }): ReadOpFile[] | null {
  if (op.status === 'done') return op.result.files;
  if (op.status !== 'failed') return null;
  return op.request.paths.map((path) => ({ path, content: null, bytes: null, truncated: false, error: op.error ?? 'the files could not be read' }));
}
