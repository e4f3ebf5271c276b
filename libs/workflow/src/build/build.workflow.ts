import {
  AGENT_SCHEMAS,
  FilesRequested,
  formatZodIssues,
  type AgentSchemaName,
  TERMINAL_RUN_STATUSES,
  type BuildRole,
  type Critique,
  type Implementation,
  type NewRunEvent,
  type Problem,
  type Proposal,
  type Review,
  type RunStatus,
  type Stage,
  type Synthesis,
  type Verdict,
} from '@roundtable/contracts';
import { budgetWarnings, checkBudget, estimateTokens, providerExhausted } from '../budget';
import type {
  AcceptanceCriterion,
  AgentCallCommand,
  BuildEvent,
  BuildRunState,
  ChatMessage,
  Command,
  CritiqueRecord,
  DomainRecord,
  FileReadRecord,
  FinishedCall,
  ImplementationRecord,
  ProposalRecord,
  ReadFile,
  StepContext,
  StepResult,
  SynthesisRecord,
  TestRunRecord,
  UsageSnapshot,
} from './build-types';
import {
  criticPack,
  engineerPack,
  fileReadsFor,
  fileRequestLimits,
  proposerPack,
  replySchemaName,
  renderMessages,
  reviserPack,
  SCHEMA_BY_ROLE,
  synthesizerPack,
  validatorPack,
  type ContextPack,
} from './context-packs';
import { StepAccumulator } from '../step-accumulator';

/**
 * The build workflow as one pure step: decide(state, event) → what the orchestrator writes and
 * enqueues. Seed §8 is the transition table; every stage change is a recorded Decision plus a
 * stage_changed event, and every agent call is budget-checked before it is queued.
 */

/** Which role's reply each stage is waiting for; a reply from any other role is stale. */
const ROLE_BY_STAGE: Partial<Record<Stage, BuildRole>> = {
  PROPOSE: 'proposer',
  CRITIQUE: 'critic',
  REVISE: 'reviser',
  IMPLEMENT: 'engineer',
  FIX: 'engineer',
  REVIEW: 'validator',
  SYNTHESIZE: 'synthesizer',
};

/** Accumulates one step's output over a private copy of the state; the input is never touched. */
class Step extends StepAccumulator<BuildRunState, Stage, DomainRecord, Command, Verdict> {
  constructor(
    input: BuildRunState,
    readonly ctx: StepContext,
  ) {
    super({
      ...input,
      criteria: input.criteria ? [...input.criteria] : null,
      workspace: { ...input.workspace, tree: [...input.workspace.tree] },
      proposals: [...input.proposals],
      critiques: [...input.critiques],
      implementations: [...input.implementations],
      testRuns: [...input.testRuns],
      openQuestions: [...(input.openQuestions ?? [])],
      fileReads: [...(input.fileReads ?? [])],
      counters: { ...input.counters },
    });
  }

  opId(): string {
    return `${this.runId}-op${this.bump('op')}`;
  }

  protected outcome() {
    const body = this.state.synthesis?.body ?? null;
    return { verdict: body?.overall_verdict ?? null, confidence: body?.confidence ?? null };
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point

export function decide(state: BuildRunState, event: BuildEvent, ctx: StepContext): StepResult {
  const step = new Step(state, ctx);
  if (event.type === 'resume') {
    onResume(step, event.at, event.rerun, event.caps ?? {});
    return step.result();
  }
  // A finished run is history: late replies, test results and cancels change nothing.
  if (TERMINAL_RUN_STATUSES.includes(state.status)) return step.result();

  switch (event.type) {
    case 'start':
      onStart(step);
      break;
    case 'workspace_prepared':
      onWorkspacePrepared(step, event.path, event.tree);
      break;
    case 'workspace_failed':
      onWorkspaceFailed(step, event.error);
      break;
    case 'agent_call_finished':
      onCallFinished(step, event.call);
      break;
    case 'files_applied':
      onFilesApplied(step, event.implementationLabel, event.tree);
      break;
    case 'files_rejected':
      onFilesRejected(step, event.implementationLabel, event.error);
      break;
    case 'files_read':
      onFilesRead(step, event.opId, event.files);
      break;
    case 'tests_finished':
      onTestsFinished(step, event.testRun);
      break;
    case 'tests_failed_to_run':
      onTestsFailedToRun(step, event.error);
      break;
    case 'cancel':
      step.state.status = 'cancelled';
      step.emit('run_cancelled', { reason: event.reason ?? null });
      return step.result();
  }

  if (step.touched) warnAboutBudget(step);
  return step.result();
}

export const buildWorkflow = { decide } as const;

/** Usage as the orchestrator will hold it after this step: the calls queued here are reserved too. */
function usageAfterStep(step: Step): UsageSnapshot {
  const usage = step.state.usage;
  let reserved = usage.reserved;
  const reservedByProvider = { ...usage.reservedByProvider };
  for (const c of step.commands) {
    if (c.kind !== 'agent_call') continue;
    reserved = { ...reserved, calls: reserved.calls + 1, tokens: reserved.tokens + c.estimatedTokens };
    const p = reservedByProvider[c.provider] ?? { calls: 0, tokens: 0, costUsd: 0 };
    reservedByProvider[c.provider] = { ...p, calls: p.calls + 1, tokens: p.tokens + c.estimatedTokens };
  }
  return { ...usage, reserved, reservedByProvider };
}

function warnAboutBudget(step: Step): void {
  const { warnings, counters } = budgetWarnings(usageAfterStep(step), step.config.budget, step.state.counters);
  if (warnings.length === 0) return;
  step.state.counters = counters;
  step.events.push(...warnings.map((w): NewRunEvent => ({ type: 'budget_warning', payload: w })));
}

// ---------------------------------------------------------------------------------------------
// Workspace

function onStart(step: Step): void {
  if (step.state.status !== 'queued' || step.state.stage !== 'INIT') return;
  step.state.status = 'running';
  step.commands.push({ kind: 'workspace.prepare', opId: step.opId() });
  step.emit('run_started', { workspace: step.config.repo ?? null });
}

function onWorkspacePrepared(step: Step, path: string, tree: string[]): void {
  if (step.state.stage !== 'INIT' || step.state.status !== 'running') return;
  step.state.workspace = { path, tree: [...tree] };
  step.go('PROPOSE', `workspace ready at ${path} (${tree.length} file${tree.length === 1 ? '' : 's'})`);
  callProposer(step);
}

function onWorkspaceFailed(step: Step, error: string): void {
  if (step.state.stage !== 'INIT') return;
  // Nothing was debated or built, so there is nothing to synthesize: the run simply failed.
  const reason = `workspace could not be prepared: ${error}`;
  step.state.haltReason = reason;
  step.go('HALTED', reason);
  step.state.status = 'failed';
  step.emit('run_failed', { reason });
}

// ---------------------------------------------------------------------------------------------
// Agent calls

interface CallSpec {
  role: BuildRole;
  label: string;
  /** Counter bumped once the call is really queued (a call refused by the budget uses no label). */
  labelFamily: string | null;
  messages: ChatMessage[];
  contextRefs: string[];
  attempt: number;
  repairOf: string | null;
  provider: string;
  model: string;
  /** What the reply must match: the role's artifact, or the artifact or a file request. */
  schemaName: AgentSchemaName;
}

function freshSpec(step: Step, role: BuildRole, label: string, labelFamily: string | null, pack: ContextPack): CallSpec {
  const agent = step.config.agents[role];
  return {
    role,
    label,
    labelFamily,
    messages: renderMessages(step.ctx.templates, role, pack.values),
    contextRefs: pack.contextRefs,
    attempt: 1,
    repairOf: null,
    provider: agent.provider,
    model: agent.model,
    schemaName: replySchemaName(step.state, role, label),
  };
}

/** Budget before every enqueue; a refused call turns the step into HALTED. */
function requestCall(step: Step, spec: CallSpec, opts: { exempt?: boolean } = {}): void {
  const estimatedTokens = estimateTokens(spec.messages);
  if (!opts.exempt) {
    const check = checkBudget(step.state.usage, step.config.budget, { provider: spec.provider, estimatedTokens });
    if (!check.ok) {
      // A refused synthesizer repair is the synthesizer's one call after the halt; anything else
      // gets a fresh partial synthesis that knows why the run stopped.
      const pendingSynth = spec.role === 'synthesizer' && spec.repairOf !== null ? spec : undefined;
      halt(step, check.reason, { refs: [check.cap], pendingSynth });
      return;
    }
  }
  if (spec.labelFamily) step.bump(spec.labelFamily);
  const agent = step.config.agents[spec.role];
  const command: AgentCallCommand = {
    kind: 'agent_call',
    callId: `${step.runId}-c${step.bump('call')}`,
    role: spec.role,
    stage: step.state.stage,
    label: spec.label,
    provider: spec.provider,
    model: spec.model,
    schemaName: spec.schemaName,
    messages: spec.messages,
    contextRefs: spec.contextRefs,
    maxTokens: agent.max_tokens,
    temperature: agent.temperature,
    timeoutMs: agent.timeout_s * 1000,
    attempt: spec.attempt,
    repairOf: spec.repairOf,
    estimatedTokens,
  };
  step.commands.push(command);
  step.emit('agent_call_queued', {
    call_id: command.callId,
    stage: command.stage,
    role: command.role,
    provider: command.provider,
    model: command.model,
    attempt: command.attempt,
    label: command.label,
  });
}

function latestProposal(state: BuildRunState): ProposalRecord | undefined {
  return state.proposals[state.proposals.length - 1];
}

function latestImplementation(state: BuildRunState): ImplementationRecord | undefined {
  return state.implementations[state.implementations.length - 1];
}

function callProposer(step: Step): void {
  const label = `P${step.peek('P')}`;
  requestCall(step, freshSpec(step, 'proposer', label, 'P', proposerPack(step.state, label)));
}

function callCritic(step: Step, proposal: ProposalRecord): void {
  const label = `C${step.peek('C')}`;
  requestCall(step, freshSpec(step, 'critic', label, 'C', criticPack(step.state, proposal, label)));
}

function callReviser(step: Step, proposal: ProposalRecord, critique: CritiqueRecord): void {
  const label = `P${step.peek('P')}`;
  requestCall(step, freshSpec(step, 'reviser', label, 'P', reviserPack(step.state, proposal, critique, label)));
}

function callEngineer(step: Step, proposal: ProposalRecord): void {
  const fix = step.state.fixRound > 0;
  // A fix round keeps the implementation's number: I1 → I1f1 → I1f2.
  const label = fix ? `I${step.state.counters.I ?? 1}f${step.state.fixRound}` : `I${step.peek('I')}`;
  requestCall(step, freshSpec(step, 'engineer', label, fix ? null : 'I', engineerPack(step.state, proposal, label)));
}

function callValidator(step: Step, implementation: ImplementationRecord): void {
  const label = `R${step.peek('R')}`;
  requestCall(step, freshSpec(step, 'validator', label, 'R', validatorPack(step.state, implementation, label)));
}

function callSynthesizer(step: Step, opts: { exempt?: boolean } = {}): void {
  const label = `S${step.peek('S')}`;
  requestCall(step, freshSpec(step, 'synthesizer', label, 'S', synthesizerPack(step.state)), opts);
}

/** The one repair call (seed §10 #5): the same conversation, the bad reply, and the validation error. */
function repairSpec(step: Step, call: FinishedCall, error: string): CallSpec {
  const previous = call.responseText ?? (call.parsed === undefined ? '' : JSON.stringify(call.parsed));
  return {
    role: call.role,
    label: call.label ?? expectedLabel(step, call.role),
    labelFamily: null,
    messages: [
      ...call.messages,
      { role: 'assistant', content: previous ?? '' },
      {
        role: 'user',
        content: `Your reply did not match the schema: ${error}. Reply again with one JSON object that matches the schema.`,
      },
    ],
    contextRefs: [call.id],
    attempt: call.attempt + 1,
    repairOf: call.id,
    provider: call.provider,
    model: call.model,
    schemaName: call.schemaName ?? SCHEMA_BY_ROLE[call.role],
  };
}

/** The label the current stage's pending call was queued under (used only if a reply lost it). */
function expectedLabel(step: Step, role: BuildRole): string {
  const c = step.state.counters;
  switch (role) {
    case 'proposer':
    case 'reviser':
      return `P${c.P ?? 1}`;
    case 'critic':
      return `C${c.C ?? 1}`;
    case 'engineer':
      return step.state.fixRound > 0 ? `I${c.I ?? 1}f${step.state.fixRound}` : `I${c.I ?? 1}`;
    case 'validator':
      return `R${c.R ?? 1}`;
    case 'synthesizer':
      return `S${c.S ?? 1}`;
  }
}

function alreadyRecorded(state: BuildRunState, role: BuildRole, label: string): boolean {
  switch (role) {
    case 'proposer':
    case 'reviser':
      return state.proposals.some((p) => p.label === label);
    case 'critic':
    case 'validator':
      return state.critiques.some((c) => c.label === label);
    case 'engineer':
      return state.implementations.some((i) => i.label === label);
    case 'synthesizer':
      // A resumed run may already hold the partial synthesis written at its halt.
      return state.synthesis?.label === label;
  }
}

function gistOf(role: BuildRole, label: string, parsed: unknown): string {
  switch (role) {
    case 'proposer':
    case 'reviser':
      return `${label}: ${(parsed as Proposal).claim}`;
    case 'critic': {
      const c = parsed as Critique;
      return `${label} ${c.verdict} (${c.problems.length} problems)`;
    }
    case 'engineer': {
      const impl = parsed as Implementation;
      const deleted = impl.deleted?.length ? `; deletes ${impl.deleted.join(', ')}` : '';
      return `${label} files: ${impl.files.map((f) => f.path).join(', ')}${deleted}`;
    }
    case 'validator': {
      const r = parsed as Review;
      return `${label} ${r.verdict} (${r.requirement_checks.filter((c) => c.satisfied).length}/${r.requirement_checks.length} checks satisfied)`;
    }
    case 'synthesizer':
      return `${label} overall ${(parsed as Synthesis).overall_verdict}`;
  }
}

function onCallFinished(step: Step, call: FinishedCall): void {
  if (ROLE_BY_STAGE[step.state.stage] !== call.role) return; // a stale or duplicate reply
  const label = call.label ?? expectedLabel(step, call.role);
  if (alreadyRecorded(step.state, call.role, label)) return;

  let failure: { error: string; code: string | null } | null = null;
  let parsed: unknown = undefined;
  if (call.status === 'failed' || call.valid === false) {
    failure = {
      error: call.error ?? '(no error text was recorded)',
      code: call.errorCode ?? (call.valid === false ? 'SCHEMA_INVALID' : null),
    };
  } else {
    // The worker validated already; parsing again gives typed data with the schema's defaults.
    const result = AGENT_SCHEMAS[call.schemaName ?? SCHEMA_BY_ROLE[call.role]].safeParse(call.parsed);
    if (result.success) parsed = result.data;
    else failure = { error: formatZodIssues(result.error), code: 'SCHEMA_INVALID' };
  }

  // Reading before writing: the reply may be a request for files instead of the artifact.
  const request = parsed === undefined ? null : FilesRequested.safeParse(parsed);
  const filesRequest = request?.success ? request.data : null;

  const facts = {
    call_id: call.id,
    stage: call.stage,
    role: call.role,
    provider: call.provider,
    model: call.model,
    attempt: call.attempt,
    label,
  };
  // Tries the provider-worker retried after a transient failure: each is its own row, and its own event.
  for (const prior of call.priorAttempts ?? []) {
    step.emit('agent_call_failed', { ...facts, call_id: prior.id, error: prior.error ?? '(no error text was recorded)', error_code: prior.errorCode });
  }
  if (call.status === 'failed') {
    step.emit('agent_call_failed', { ...facts, error: failure!.error, error_code: failure!.code });
  } else {
    step.emit('agent_call_completed', {
      ...facts,
      valid: failure === null,
      input_tokens: call.usage?.inputTokens ?? null,
      output_tokens: call.usage?.outputTokens ?? null,
      cost_usd: call.usage?.costUsd ?? null,
      latency_ms: call.usage?.latencyMs ?? null,
      gist: failure ? failure.error.slice(0, 200) : filesRequest ? `${label}: asks to read ${filesRequest.paths.join(', ')}` : gistOf(call.role, label, parsed),
    });
  }

  if (failure) return onCallFailed(step, call, failure.error, failure.code);
  if (filesRequest) return onFilesRequested(step, call, label, filesRequest);

  switch (step.state.stage) {
    case 'PROPOSE':
    case 'REVISE':
      return onProposal(step, call, label, parsed as Proposal);
    case 'CRITIQUE':
      return onCritique(step, call, label, parsed as Critique);
    case 'IMPLEMENT':
    case 'FIX':
      return onImplementation(step, call, label, parsed as Implementation);
    case 'REVIEW':
      return onReview(step, call, label, parsed as Review);
    case 'SYNTHESIZE':
      return onSynthesis(step, call, label, parsed as Synthesis);
    default:
      return;
  }
}

function onCallFailed(step: Step, call: FinishedCall, error: string, code: string | null): void {
  const halted = step.state.haltReason !== null;
  if (call.role === 'synthesizer' && halted) {
    // The synthesizer had its one call after the halt; no repair, no second try.
    return factOnly(step, `the partial synthesis failed (${code ?? 'ERROR'}): ${error}`);
  }
  const schema = code === 'SCHEMA_INVALID';
  if (schema && call.attempt === 1) return requestCall(step, repairSpec(step, call, error));
  const fallback = fallbackSpec(step, call, error, code);
  if (fallback) return requestCall(step, fallback);

  const reason = schema
    ? `FAILED_SCHEMA: ${call.role} reply failed its schema twice: ${error}`
    : `${call.role} call failed (${code ?? 'ERROR'}): ${error}`;
  if (call.role === 'synthesizer') {
    step.state.haltReason = reason;
    step.go('HALTED', reason, [call.id]);
    step.emit('run_halted', { reason });
    return factOnly(step, 'the synthesizer failed, so no model wrote the report');
  }
  halt(step, reason, { refs: [call.id], usageLimitProvider: code === 'USAGE_LIMIT' ? call.provider : null });
}

/**
 * Failures another provider need not share: this one's quota, key or model, or an outage that
 * outlasted the provider-worker's retries. A schema failure is the model's, and gets its repair.
 */
const FALLBACK_CODES: ReadonlySet<string> = new Set(['USAGE_LIMIT', 'AUTH', 'NOT_FOUND', 'RATE_LIMITED', 'SERVER_ERROR', 'NETWORK', 'TIMEOUT']);

/**
 * The same call (same messages, label and attempt) on the role's `fallback` provider, as a
 * recorded decision. Once per call chain: a call already off the role's own provider is the
 * fallback, and its failure halts like any other.
 */
function fallbackSpec(step: Step, call: FinishedCall, error: string, code: string | null): CallSpec | null {
  const agent = step.config.agents[call.role];
  const to = agent.fallback;
  if (!to || to === call.provider || call.provider !== agent.provider || code === 'SCHEMA_INVALID') return null;
  const retriesExhausted = (call.retry ?? 0) > 0;
  if (!retriesExhausted && !(code !== null && FALLBACK_CODES.has(code))) return null;
  const model = agent.fallback_model ?? call.model;
  const why = retriesExhausted ? ` after ${call.retry} ${call.retry === 1 ? 'retry' : 'retries'}` : '';
  const reason =
    `${call.role} call on ${call.provider}/${call.model} failed (${code ?? 'ERROR'})${why}: ${error}; ` +
    `asking the fallback provider ${to}/${model} instead`;
  const stage = step.state.stage;
  step.decisions.push({ from: stage, to: stage, reason, refs: [call.id] });
  step.emit('provider_fallback', { role: call.role, from: call.provider, to, reason });
  return {
    role: call.role,
    label: call.label ?? expectedLabel(step, call.role),
    labelFamily: null,
    messages: call.messages,
    contextRefs: [call.id],
    attempt: call.attempt,
    repairOf: null,
    provider: to,
    model,
    schemaName: call.schemaName ?? SCHEMA_BY_ROLE[call.role],
  };
}

// ---------------------------------------------------------------------------------------------
// Reading before writing (issue 4)

/**
 * The critic, engineer or validator asked to read files before answering: the test-runner
 * reads them (path-checked, size-capped) and the same question is asked again with the files
 * in the prompt. The request call is a recorded, budgeted call like any other; the number of
 * requests per answer is bounded (`file_requests.max_rounds`), after which the reply schema no
 * longer offers the request and the role must answer.
 */
function onFilesRequested(step: Step, call: FinishedCall, label: string, request: FilesRequested): void {
  const limits = fileRequestLimits(step.state);
  const unique = [...new Set(request.paths)];
  const record: FileReadRecord = {
    opId: step.opId(),
    label,
    role: call.role,
    callId: call.id,
    paths: unique.slice(0, limits.max_files),
    reason: request.reason ?? null,
    refused: unique.slice(limits.max_files),
    files: null,
  };
  step.state.fileReads = [...(step.state.fileReads ?? []), record];
  const { files: _notReadYet, ...asked } = record;
  step.commands.push({ kind: 'workspace.read', ...asked, maxBytesPerFile: limits.max_bytes_per_file });
  step.emit('files_requested', {
    role: call.role,
    label,
    call_id: call.id,
    paths: record.paths,
    round: fileReadsFor(step.state, label).length,
    ...(record.refused.length ? { refused: record.refused } : {}),
  });
}

function onFilesRead(step: Step, opId: string, files: ReadFile[]): void {
  const reads = step.state.fileReads ?? [];
  const i = reads.findIndex((r) => r.opId === opId);
  if (i < 0) return;
  const record: FileReadRecord = { ...reads[i], files };
  step.state.fileReads = reads.map((r, j) => (j === i ? record : r));
  step.emit('files_read', {
    label: record.label,
    files: files.map((f) => ({ path: f.path, bytes: f.bytes, truncated: f.truncated, error: f.error })),
  });
  // The run moved on (cancelled, halted, resumed elsewhere): the files are on record, nobody is asked.
  if (ROLE_BY_STAGE[step.state.stage] !== record.role || alreadyRecorded(step.state, record.role, record.label)) return;
  const proposal = latestProposal(step.state);
  const impl = latestImplementation(step.state);
  switch (record.role) {
    case 'critic':
      if (proposal) requestCall(step, freshSpec(step, 'critic', record.label, null, criticPack(step.state, proposal, record.label)));
      return;
    case 'engineer':
      if (proposal) requestCall(step, freshSpec(step, 'engineer', record.label, null, engineerPack(step.state, proposal, record.label)));
      return;
    case 'validator':
      if (impl) requestCall(step, freshSpec(step, 'validator', record.label, null, validatorPack(step.state, impl, record.label)));
      return;
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Resume

const RESUMABLE: readonly RunStatus[] = ['halted', 'needs_input', 'failed'];

/**
 * Restarts a stopped run in the stage its halting decision left (seed status log, M3):
 * recorded work is reused, never re-billed — a critique already recorded for the current
 * proposal is applied, not re-run — and usage continues from what is recorded. With an
 * explicit stage (`rerun`), that stage's work is done again.
 */
function onResume(step: Step, at: Stage, rerun: boolean, caps: Partial<Record<string, number>>): void {
  if (!RESUMABLE.includes(step.state.status)) return;
  const budget = { ...step.config.budget };
  for (const [k, v] of Object.entries(caps)) if (typeof v === 'number') (budget as Record<string, unknown>)[k] = v;
  step.state.config = { ...step.config, budget };
  step.state.status = 'running';
  step.state.haltReason = null;
  step.emit('run_resumed', { at, rerun, caps: Object.fromEntries(Object.entries(caps).filter(([, v]) => typeof v === 'number')) as Record<string, number> });
  step.go(at, rerun ? `resumed: re-running ${at} as asked` : `resumed where the halt left the run`, []);

  const proposal = latestProposal(step.state);
  const impl = latestImplementation(step.state);
  const critiqueOf = (p: ProposalRecord) =>
    [...step.state.critiques].reverse().find((c) => c.targetKind === 'proposal' && c.targetLabel === p.label);
  switch (at) {
    case 'INIT':
      step.commands.push({ kind: 'workspace.prepare', opId: step.opId() });
      return;
    case 'PROPOSE':
      return callProposer(step);
    case 'CRITIQUE': {
      if (!proposal) return callProposer(step);
      const recorded = critiqueOf(proposal);
      if (recorded && !rerun) return applyCritique(step, recorded, proposal);
      return callCritic(step, proposal);
    }
    case 'REVISE': {
      const critique = proposal && critiqueOf(proposal);
      if (!proposal || !critique) return proposal ? callCritic(step, proposal) : callProposer(step);
      return callReviser(step, proposal, critique);
    }
    case 'IMPLEMENT':
    case 'FIX': {
      if (impl && impl.status === 'pending' && !rerun) {
        step.commands.push({ kind: 'workspace.apply', opId: step.opId(), implementationLabel: impl.label });
        return;
      }
      const accepted = step.state.proposals.find((p) => p.status === 'accepted') ?? proposal;
      if (!accepted) return callProposer(step);
      return callEngineer(step, accepted);
    }
    case 'TEST': {
      if (!impl) return;
      const command = step.config.test_command ?? impl.body.test_command;
      step.commands.push({
        kind: 'tests.run',
        opId: step.opId(),
        implementationLabel: impl.label,
        testLabel: `T${step.bump('T')}`,
        command,
        timeoutS: step.config.test_timeout_s,
      });
      step.emit('tests_started', { implementation: impl.label, command });
      return;
    }
    case 'REVIEW':
      return impl ? callValidator(step, impl) : callSynthesizer(step);
    default:
      // SYNTHESIZE, or a stage with nothing left to redo: the run ends with a fresh synthesis.
      if (step.state.stage !== 'SYNTHESIZE') step.go('SYNTHESIZE', `nothing to redo in ${at}; synthesizing`, []);
      return callSynthesizer(step);
  }
}

// ---------------------------------------------------------------------------------------------
// Halting

interface HaltOptions {
  refs?: string[];
  /** A synthesizer repair refused by the budget: it becomes the synthesizer's one call. */
  pendingSynth?: CallSpec;
  /** The provider that reported a usage limit; if it is the synthesizer's, no call is attempted. */
  usageLimitProvider?: string | null;
}

/** Any stage → HALTED → SYNTHESIZE(partial) → DONE; the synthesizer gets exactly one call. */
function halt(step: Step, reason: string, opts: HaltOptions = {}): void {
  if (step.state.haltReason !== null) {
    // Only the partial synthesis runs after a halt, and it never halts again: be safe anyway.
    return factOnly(step, `halted again while halted: ${reason}`);
  }
  step.state.haltReason = reason;
  step.go('HALTED', reason, opts.refs ?? []);
  step.emit('run_halted', { reason });

  const provider = step.config.agents.synthesizer.provider;
  if (providerExhausted(step.state.usage, step.config.budget, provider)) {
    return factOnly(step, `the synthesizer's provider ${provider} has reached its own budget cap`);
  }
  if (opts.usageLimitProvider === provider) {
    return factOnly(step, `the synthesizer's provider ${provider} reported a usage limit`);
  }
  step.go('SYNTHESIZE', 'partial synthesis after the halt: the synthesizer gets exactly one call, even over budget');
  if (opts.pendingSynth) requestCall(step, opts.pendingSynth, { exempt: true });
  else callSynthesizer(step, { exempt: true });
}

/** The report without a model: a synthesis row with no body, written from the records alone. */
function factOnly(step: Step, why: string, opts: { status?: RunStatus; stage?: Stage } = {}): void {
  const label = `S${step.bump('S')}`;
  const record: SynthesisRecord = { id: step.id(label), label, callId: null, partial: true, body: null };
  step.state.synthesis = record;
  step.records.push({ kind: 'synthesis', record });
  step.emit('synthesis_recorded', { label, verdict: null, partial: true });
  const to = opts.stage ?? 'DONE';
  if (step.state.stage !== to) step.go(to, `fact-only report: ${why}`, [label]);
  const status = opts.status ?? 'halted';
  step.state.status = status;
  step.emit('run_completed', { status, verdict: null, confidence: null });
}

// ---------------------------------------------------------------------------------------------
// Debate

function setProposalStatus(step: Step, label: string, status: ProposalRecord['status']): void {
  const i = step.state.proposals.findIndex((p) => p.label === label);
  if (i < 0 || step.state.proposals[i].status === status) return;
  step.state.proposals[i] = { ...step.state.proposals[i], status };
  step.records.push({ kind: 'proposal_status', label, status });
}

function onProposal(step: Step, call: FinishedCall, label: string, body: Proposal): void {
  const previous = latestProposal(step.state);
  const record: ProposalRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    round: step.state.round,
    revisionOf: previous?.label ?? null,
    status: 'proposed',
    body,
  };
  if (previous) setProposalStatus(step, previous.label, 'superseded');
  step.state.proposals.push(record);
  step.records.push({ kind: 'proposal', record });
  step.emit('proposal_recorded', { label, claim: body.claim, confidence: body.confidence, revision_of: record.revisionOf });
  step.go('CRITIQUE', previous ? `revision ${label} of ${previous.label} valid` : `${label} valid`, [label]);
  callCritic(step, record);
}

function normalised(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Acceptance criteria: the proposal's tests, then the critic's, de-duplicated; frozen from here on. */
function lockCriteria(step: Step, proposal: ProposalRecord, critique: Critique): void {
  const seen = new Set<string>();
  const criteria: AcceptanceCriterion[] = [];
  for (const text of [...proposal.body.tests_required, ...critique.tests_required]) {
    const key = normalised(text);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    criteria.push({ id: `AC${criteria.length + 1}`, text: text.trim() });
  }
  step.state.criteria = criteria;
  step.emit('criteria_locked', { criteria });
}

function raiseOpenQuestion(step: Step, role: BuildRole, question: string): void {
  step.state.openQuestions = [...(step.state.openQuestions ?? []), { role, question }];
  step.records.push({ kind: 'open_question', role, question });
  step.emit('open_question_raised', { role, question });
}

function onCritique(step: Step, call: FinishedCall, label: string, body: Critique): void {
  const proposal = latestProposal(step.state);
  if (!proposal) return;
  const record: CritiqueRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    targetKind: 'proposal',
    targetLabel: proposal.label,
    verdict: body.verdict,
    body,
  };
  step.state.critiques.push(record);
  step.records.push({ kind: 'critique', record });
  step.emit('critique_recorded', { label, target: proposal.label, verdict: body.verdict, problems: body.problems.length });
  applyCritique(step, record, proposal);
}

/** The §8 verdict branch; also how a resumed run applies a critique it already paid for. */
function applyCritique(step: Step, record: CritiqueRecord, proposal: ProposalRecord): void {
  const { label } = record;
  const body = record.body as Critique;
  const refs = [label, proposal.label];
  const { max_rounds } = step.config.budget;
  switch (body.verdict) {
    case 'ACCEPT':
      setProposalStatus(step, proposal.label, 'accepted');
      lockCriteria(step, proposal, body);
      return implementOrStop(step, proposal, `${label} ACCEPTs ${proposal.label}`, refs);

    case 'REVISE': {
      setProposalStatus(step, proposal.label, 'criticized');
      if (step.config.autonomy === 0) return stopForAdvice(step, `${label} says REVISE on ${proposal.label}`, refs);
      if (step.state.round < max_rounds) {
        step.state.round += 1;
        step.go('REVISE', `${label} says REVISE on ${proposal.label}: revision round ${step.state.round} of ${max_rounds}`, refs);
        return callReviser(step, proposal, record);
      }
      const blockers = body.problems.filter((p) => p.severity === 'blocker');
      if (blockers.length > 0) return needsInput(step, record, proposal, blockers);
      if (step.config.on_unresolved === 'halt') {
        return halt(step, `unresolved criticisms at the round limit (on_unresolved: halt): ${label} still says REVISE on ${proposal.label} after ${max_rounds} revision rounds`, { refs });
      }
      step.state.unresolved = true;
      lockCriteria(step, proposal, body);
      return implementOrStop(
        step,
        proposal,
        `${label} still says REVISE on ${proposal.label} at the round limit (${max_rounds}); open criticisms go with it and are reported as disagreements (on_unresolved: implement)`,
        refs,
      );
    }

    case 'REJECT':
      setProposalStatus(step, proposal.label, 'rejected');
      step.go('SYNTHESIZE', `${label} REJECTs ${proposal.label}: nothing is built; the report says why`, refs);
      return callSynthesizer(step);

    case 'NEEDS_EVIDENCE':
    case 'NEEDS_EXPERIMENT': {
      setProposalStatus(step, proposal.label, 'criticized');
      const asks = [...body.problems.map((p) => p.description), ...body.tests_required.map((t) => `test: ${t}`)];
      const detail = asks.length ? asks.join('; ') : body.counterarguments.join('; ') || 'no detail given';
      raiseOpenQuestion(step, 'critic', `${label} (${body.verdict}) on ${proposal.label}: ${detail}`);
      step.go('SYNTHESIZE', `${label} says ${body.verdict} on ${proposal.label}: recorded as an open question (no researcher in v1)`, refs);
      return callSynthesizer(step);
    }
  }
}

/** Autonomy 0: advice only, the run stops after the first critique. */
function stopForAdvice(step: Step, why: string, refs: string[]): void {
  step.go('SYNTHESIZE', `${why}; autonomy 0: advice only, the run stops after the first critique`, refs);
  callSynthesizer(step);
}

/** Where the full pipeline implements, autonomy 0 and 1 synthesize instead. */
function implementOrStop(step: Step, proposal: ProposalRecord, why: string, refs: string[]): void {
  if (step.config.autonomy === 0) return stopForAdvice(step, why, refs);
  if (step.config.autonomy === 1) {
    step.go('SYNTHESIZE', `${why}; autonomy 1: criteria locked, nothing is implemented`, refs);
    return callSynthesizer(step);
  }
  step.go('IMPLEMENT', why, refs);
  callEngineer(step, proposal);
}

/**
 * Policy change (seed status log, 2026-09-26): a blocker still open at the round limit stops the
 * run as needs_input instead of locking criteria a human has not agreed to.
 */
function needsInput(step: Step, critique: CritiqueRecord, proposal: ProposalRecord, blockers: Problem[]): void {
  const reason = `blocker still open at the round limit: ${blockers.map((b) => b.description).join('; ')}`;
  step.state.haltReason = reason;
  step.go('HALTED', reason, [critique.label, proposal.label]);
  step.emit('run_halted', { reason });
  for (const b of blockers) {
    raiseOpenQuestion(
      step,
      'critic',
      `${critique.label} blocker on ${proposal.label} is still open after ${step.config.budget.max_rounds} revision rounds: ` +
        `${b.description}${b.location ? ` (${b.location})` : ''}. Decide how to proceed, then resume the run.`,
    );
  }
  factOnly(step, 'a blocker needs a human decision', { status: 'needs_input', stage: 'HALTED' });
}

// ---------------------------------------------------------------------------------------------
// Build, test, review

function setImplementationStatus(step: Step, label: string, status: ImplementationRecord['status'], applyError: string | null): void {
  const i = step.state.implementations.findIndex((r) => r.label === label);
  if (i < 0) return;
  step.state.implementations[i] = { ...step.state.implementations[i], status, applyError };
  step.records.push({ kind: 'implementation_status', label, status, applyError });
}

function onImplementation(step: Step, call: FinishedCall, label: string, body: Implementation): void {
  const proposal = latestProposal(step.state);
  if (!proposal) return;
  const record: ImplementationRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    proposalLabel: proposal.label,
    fixRound: step.state.fixRound,
    status: 'pending',
    applyError: null,
    body,
  };
  step.state.implementations.push(record);
  step.records.push({ kind: 'implementation', record });
  step.emit('implementation_recorded', { label, files: body.files.map((f) => f.path), fix_round: step.state.fixRound });
  step.commands.push({ kind: 'workspace.apply', opId: step.opId(), implementationLabel: label });
}

function pendingImplementation(step: Step, label: string): ImplementationRecord | undefined {
  if (step.state.stage !== 'IMPLEMENT' && step.state.stage !== 'FIX') return undefined;
  const impl = latestImplementation(step.state);
  return impl && impl.label === label && impl.status === 'pending' ? impl : undefined;
}

function onFilesApplied(step: Step, label: string, tree: string[]): void {
  const impl = pendingImplementation(step, label);
  if (!impl) return;
  setImplementationStatus(step, label, 'applied', null);
  step.state.workspace = { ...step.state.workspace, tree: [...tree] };
  step.go('TEST', `${label} files written (path-checked)`, [label]);
  const command = step.config.test_command ?? impl.body.test_command;
  step.commands.push({
    kind: 'tests.run',
    opId: step.opId(),
    implementationLabel: label,
    testLabel: `T${step.bump('T')}`,
    command,
    timeoutS: step.config.test_timeout_s,
  });
  step.emit('tests_started', { implementation: label, command });
}

function onFilesRejected(step: Step, label: string, error: string): void {
  const impl = pendingImplementation(step, label);
  if (!impl) return;
  setImplementationStatus(step, label, 'rejected', error);
  step.emit('files_rejected', { label, error });
  halt(step, `implementation ${label} rejected: ${error}`, { refs: [label] });
}

function onTestsFinished(step: Step, run: TestRunRecord): void {
  if (step.state.stage !== 'TEST' || step.state.testRuns.some((t) => t.label === run.label)) return;
  const impl = latestImplementation(step.state);
  if (!impl) return;
  step.state.testRuns.push(run);
  const n = Number(/^T(\d+)$/.exec(run.label)?.[1] ?? 0);
  if (n > (step.state.counters.T ?? 0)) step.state.counters.T = n;
  const r = run.result;
  step.emit('tests_completed', {
    label: run.label,
    exit_code: r.exit_code,
    passed: r.passed,
    failed: r.failed,
    errors: r.errors,
    timed_out: r.timed_out,
  });

  const refs = [run.label, impl.label];
  const { max_fix_rounds } = step.config.budget;
  if (r.exit_code === 0) {
    step.go('REVIEW', `${run.label} passed (exit 0)`, refs);
    return callValidator(step, impl);
  }
  if (step.state.fixRound < max_fix_rounds) {
    step.state.fixRound += 1;
    step.go('FIX', `${run.label} failed (exit ${r.exit_code}): fix round ${step.state.fixRound} of ${max_fix_rounds}`, refs);
    const proposal = step.state.proposals.find((p) => p.label === impl.proposalLabel) ?? latestProposal(step.state)!;
    return callEngineer(step, proposal);
  }
  step.go(
    'REVIEW',
    `${run.label} failed (exit ${r.exit_code}) and the fix rounds are used up (${step.state.fixRound} of ${max_fix_rounds}); the validator sees the failing tests`,
    refs,
  );
  callValidator(step, impl);
}

function onTestsFailedToRun(step: Step, error: string): void {
  if (step.state.stage !== 'TEST') return;
  const impl = latestImplementation(step.state);
  halt(step, `tests could not run: ${error}`, { refs: impl ? [impl.label] : [] });
}

function onReview(step: Step, call: FinishedCall, label: string, body: Review): void {
  const impl = latestImplementation(step.state);
  if (!impl) return;
  const record: CritiqueRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    targetKind: 'implementation',
    targetLabel: impl.label,
    verdict: body.verdict,
    body,
  };
  step.state.critiques.push(record);
  step.records.push({ kind: 'critique', record });
  step.emit('review_recorded', { label, verdict: body.verdict });
  step.go('SYNTHESIZE', `${label} says ${body.verdict} on ${impl.label}: the verdict is data for the synthesizer, not a branch`, [label, impl.label]);
  callSynthesizer(step);
}

function onSynthesis(step: Step, call: FinishedCall, label: string, body: Synthesis): void {
  const halted = step.state.haltReason !== null;
  const record: SynthesisRecord = { id: step.id(label), label, callId: call.id, partial: halted, body };
  step.state.synthesis = record;
  step.records.push({ kind: 'synthesis', record });
  step.emit('synthesis_recorded', { label, verdict: body.overall_verdict, partial: halted });
  step.go('DONE', halted ? `partial synthesis ${label} recorded after the halt` : `${label} valid`, [label]);
  const status: RunStatus = halted ? 'halted' : 'done';
  step.state.status = status;
  step.emit('run_completed', { status, verdict: body.overall_verdict, confidence: body.confidence });
}
