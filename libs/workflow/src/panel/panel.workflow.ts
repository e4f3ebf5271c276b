import {
  type PanelRecommendation,
  AGENT_SCHEMAS,
  formatZodIssues,
  JUDGES,
  TERMINAL_RUN_STATUSES,
  type DebateTurn,
  type JudgeRole,
  type JudgeVerdict,
  type ModeratorSynthesis,
  type NewRunEvent,
  type PanelCompletion,
  type PanelRole,
  type PanelStage,
  type PanelWarning,
  type Revote,
  type RunStatus,
} from '@roundtable/contracts';
import type { UsageSnapshot, UsageTotals } from '../build/build-types';
import { StepAccumulator } from '../engine/step-accumulator';
import { budgetWarnings, checkBudget, estimateTokens, providerExhausted, type BudgetCheck } from '../budget';
import { assessPanel, assessRevote, clampRevote, REVOTE_CAP } from '../verification/panel-quality';
import {
  appealPack,
  currentScores,
  currentVerdicts,
  debatePack,
  judgePack,
  JUDGE_NUDGES,
  moderatorPack,
  renderPanelMessages,
  revotePack,
  templateFor,
  type PanelContextPack,
} from './panel-context-packs';
import {
  SCHEMA_BY_KIND,
  type DebateTurnRecord,
  type JudgeVerdictRecord,
  type ModeratorRecord,
  type PanelAgentCallCommand,
  type PanelCallKind,
  type PanelEvent,
  type PanelFinishedCall,
  type PanelPhase,
  type PanelRecord,
  type PanelRunState,
  type PanelStepContext,
  type PanelStepResult,
  type PendingCall,
  type RevoteRecord,
} from './panel-types';

/**
 * The panel workflow (seed 003) as one pure step, on the same engine as the build: the same
 * agent-call commands, budget reservations, repair call and halting rule. The code owns
 * everything but judgment: who is asked, in what order, how often, and what happens when a
 * panel is weak, collapsed or herding.
 *
 * INIT → ROAST (five judges at once; weak judges retried ≤ 2×; collapsed → failed)
 *      → DEBATE (vc → engineer → pm → customer → competitor, × max_debate_rounds)
 *      → REVOTE (five at once, ±3 cap) → MODERATE → DONE.
 * A refused call or a failed one halts: the calls in flight land, then the moderator gets
 * exactly one call (or a fact-only close). An appeal on a done run re-scores chosen judges once.
 */

/** Retries of weak judges before a still-weak panel fails the run. */
export const MAX_PANEL_RETRIES = 2;

class PanelStep extends StepAccumulator<PanelRunState, PanelStage, PanelRecord, PanelAgentCallCommand, PanelRecommendation> {
  constructor(
    input: PanelRunState,
    readonly ctx: PanelStepContext,
  ) {
    super({
      ...input,
      verdicts: [...input.verdicts],
      turns: [...input.turns],
      revotes: [...input.revotes],
      warnings: [...input.warnings],
      roastBatch: [...input.roastBatch],
      pending: { ...input.pending },
      phaseStartedAt: { ...input.phaseStartedAt },
      phaseSeconds: { ...input.phaseSeconds },
      calls: [...input.calls],
      counters: { ...input.counters },
    });
  }

  warn(warning: PanelWarning): void {
    this.state.warnings.push(warning);
    this.records.push({ kind: 'panel_warning', warning });
    this.emit('panel_warning', warning);
  }

  protected outcome() {
    const body = this.state.moderator?.body ?? null;
    return { verdict: body?.overall_recommendation ?? null, confidence: body?.confidence ?? null };
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point

export function decidePanel(state: PanelRunState, event: PanelEvent, ctx: PanelStepContext): PanelStepResult {
  const step = new PanelStep(state, ctx);
  if (event.type === 'appeal') {
    onAppeal(step, event.evidence, event.judges, event.caps ?? {});
  } else if (TERMINAL_RUN_STATUSES.includes(state.status)) {
    // A finished run is history, except for the re-scores of its one appeal.
    if (event.type === 'agent_call_finished' && state.pending[event.call.role]?.kind === 'appeal') onCallFinished(step, event.call);
  } else {
    switch (event.type) {
      case 'start':
        onStart(step);
        break;
      case 'agent_call_finished':
        onCallFinished(step, event.call);
        break;
      case 'cancel':
        // Between turns by construction: a step is never interrupted, and a reply that lands
        // after this is ignored because the run is terminal.
        step.state.status = 'cancelled';
        step.emit('run_cancelled', { reason: event.reason ?? null });
        return step.result();
    }
  }
  if (step.touched) warnAboutBudget(step);
  return step.result();
}

export const panelWorkflow = { decide: decidePanel } as const;

/** May this run take an appeal now? (The API answers 409 with the reason when not.) */
export function canAppeal(state: PanelRunState): { ok: true } | { ok: false; reason: string } {
  if (state.appeal) return { ok: false, reason: 'this run has had its one appeal' };
  if (state.status !== 'done') return { ok: false, reason: `only a finished panel can be appealed (status is ${state.status})` };
  if (!state.moderator?.body) return { ok: false, reason: 'the panel has no synthesis to appeal' };
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------
// Budget

const ZERO: UsageTotals = { calls: 0, tokens: 0, costUsd: 0 };

function reserve(usage: UsageSnapshot, provider: string, tokens: number): UsageSnapshot {
  const r = usage.reserved;
  const p = usage.reservedByProvider[provider] ?? ZERO;
  return {
    ...usage,
    reserved: { ...r, calls: r.calls + 1, tokens: r.tokens + tokens },
    reservedByProvider: { ...usage.reservedByProvider, [provider]: { ...p, calls: p.calls + 1, tokens: p.tokens + tokens } },
  };
}

/** Usage as the orchestrator will hold it after this step: calls queued here are reserved too. */
function usageAfterStep(step: PanelStep): UsageSnapshot {
  return step.commands.reduce((u, c) => reserve(u, c.provider, c.estimatedTokens), step.state.usage);
}

function warnAboutBudget(step: PanelStep): void {
  const { warnings, counters } = budgetWarnings(usageAfterStep(step), step.config.budget, step.state.counters);
  if (warnings.length === 0) return;
  step.state.counters = counters;
  step.events.push(...warnings.map((w): NewRunEvent => ({ type: 'budget_warning', payload: w })));
}

// ---------------------------------------------------------------------------------------------
// Agent calls

interface CallSpec {
  role: PanelRole;
  kind: PanelCallKind;
  stage: PanelStage;
  label: string;
  /** Counter bumped once the call is really queued (a refused call uses no label). */
  labelFamily: string | null;
  messages: PanelAgentCallCommand['messages'];
  contextRefs: string[];
  attempt: number;
  repairOf: string | null;
  provider: string;
  model: string;
}

const agentOf = (step: PanelStep, role: PanelRole) => (role === 'moderator' ? step.config.moderator : step.config.judges[role]);

function freshSpec(step: PanelStep, role: PanelRole, kind: PanelCallKind, label: string, labelFamily: string, pack: PanelContextPack, stage: PanelStage = step.state.stage): CallSpec {
  const agent = agentOf(step, role);
  return {
    role,
    kind,
    stage,
    label,
    labelFamily,
    messages: renderPanelMessages(step.ctx.templates, role, templateFor(kind, role), pack.values),
    contextRefs: pack.contextRefs,
    attempt: 1,
    repairOf: null,
    provider: agent.provider,
    model: agent.model,
  };
}

type Refusal = Extract<BudgetCheck, { ok: false }> & { index: number };

/**
 * Budget before every enqueue, for a whole batch: each call is checked against recorded usage
 * plus every reservation, including the calls queued earlier in this same step, so five judges
 * dispatched at once cannot overshoot a cap together. The calls that fit are queued (all or
 * none with `allOrNothing`); the first refusal is returned for the caller to act on.
 */
function queueCalls(step: PanelStep, specs: CallSpec[], opts: { exempt?: boolean; allOrNothing?: boolean } = {}): Refusal | null {
  let usage = usageAfterStep(step);
  let refusal: Refusal | null = null;
  const estimates = specs.map((s) => estimateTokens(s.messages));
  if (!opts.exempt) {
    for (let i = 0; i < specs.length; i += 1) {
      const check = checkBudget(usage, step.config.budget, { provider: specs[i].provider, estimatedTokens: estimates[i] });
      if (!check.ok) {
        refusal = { ...check, index: i };
        break;
      }
      usage = reserve(usage, specs[i].provider, estimates[i]);
    }
  }
  const fitting = refusal ? (opts.allOrNothing ? [] : specs.slice(0, refusal.index)) : specs;
  fitting.forEach((spec, i) => enqueue(step, spec, estimates[i]));
  return refusal;
}

function enqueue(step: PanelStep, spec: CallSpec, estimatedTokens: number): void {
  if (spec.labelFamily) step.bump(spec.labelFamily);
  const agent = agentOf(step, spec.role);
  const command: PanelAgentCallCommand = {
    kind: 'agent_call',
    callId: `${step.runId}-c${step.bump('call')}`,
    role: spec.role,
    stage: spec.stage,
    label: spec.label,
    provider: spec.provider,
    model: spec.model,
    schemaName: SCHEMA_BY_KIND[spec.kind],
    messages: spec.messages,
    contextRefs: spec.contextRefs,
    maxTokens: agent.max_tokens,
    temperature: agent.temperature,
    timeoutMs: agent.timeout_s * 1000,
    attempt: spec.attempt,
    repairOf: spec.repairOf,
    estimatedTokens,
    reservedTokens: estimatedTokens,
    reservedCostUsd: 0,
  };
  step.commands.push(command);
  step.state.pending[spec.role] = { label: spec.label, kind: spec.kind, callId: command.callId };
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

/** Queue calls; a refusal halts the run (the calls that fit are already in flight and will land). */
function queueOrHalt(step: PanelStep, specs: CallSpec[]): boolean {
  const refusal = queueCalls(step, specs);
  if (!refusal) return true;
  const refused = specs[refusal.index];
  // A refused moderator repair becomes the moderator's one call after the halt.
  halt(step, refusal.reason, { refs: [refusal.cap], pendingModerator: refused.role === 'moderator' && refused.repairOf ? refused : undefined });
  return false;
}

/** The one repair call: the same conversation, the bad reply, and what was wrong with it. */
function repairSpec(call: PanelFinishedCall, pending: PendingCall, error: string): CallSpec {
  const previous = call.responseText ?? (call.parsed === undefined ? '' : JSON.stringify(call.parsed));
  return {
    role: call.role,
    kind: pending.kind,
    stage: call.stage,
    label: pending.label,
    labelFamily: null,
    messages: [
      ...call.messages,
      { role: 'assistant', content: previous ?? '' },
      { role: 'user', content: `Your reply did not match the schema: ${error}. Reply again with one JSON object that matches the schema.` },
    ],
    contextRefs: [call.id],
    attempt: call.attempt + 1,
    repairOf: call.id,
    provider: call.provider,
    model: call.model,
  };
}

// ---------------------------------------------------------------------------------------------
// Phases (wall-clock seconds come from usage.elapsedSeconds: the workflow has no clock)

function enterPhase(step: PanelStep, phase: PanelPhase): void {
  closePhases(step);
  step.state.phaseStartedAt[phase] = step.state.usage.elapsedSeconds;
}

function closePhases(step: PanelStep): void {
  for (const [phase, started] of Object.entries(step.state.phaseStartedAt) as [PanelPhase, number][]) {
    if (step.state.phaseSeconds[phase] === undefined) step.state.phaseSeconds[phase] = Math.max(0, step.state.usage.elapsedSeconds - started);
  }
}

// ---------------------------------------------------------------------------------------------
// Replies

function previousScoreFor(step: PanelStep, kind: PanelCallKind, judge: JudgeRole): number | undefined {
  if (kind === 'appeal') return step.state.appeal?.previous[judge];
  return step.state.revoteBaseline?.[judge];
}

/** What the schema alone cannot know: who is speaking, which round, and whether a score moved. */
function contextIssue(step: PanelStep, role: PanelRole, kind: PanelCallKind, parsed: unknown): string | null {
  switch (kind) {
    case 'verdict': {
      const v = parsed as JudgeVerdict;
      return v.judge === role ? null : `judge: this verdict is the ${role}'s, so judge must be "${role}" (got "${v.judge}")`;
    }
    case 'turn': {
      const t = parsed as DebateTurn;
      if (t.speaker !== role) return `speaker: this turn is the ${role}'s, so speaker must be "${role}" (got "${t.speaker}")`;
      if (t.round !== step.state.debateRound) return `round: this is round ${step.state.debateRound} (got ${t.round})`;
      return null;
    }
    case 'revote':
    case 'appeal': {
      const r = parsed as Revote;
      if (r.judge !== role) return `judge: this re-vote is the ${role}'s, so judge must be "${role}" (got "${r.judge}")`;
      const previous = previousScoreFor(step, kind, role as JudgeRole);
      if (previous === undefined) return null;
      if (r.score !== previous && !(r.changed && r.change_reason?.trim())) {
        return `change_reason: your score moved from ${previous} to ${r.score}, so changed must be true and change_reason must say what in the debate or evidence moved it`;
      }
      if (r.score === previous && r.changed) return `changed: your score stays at ${previous}, so changed must be false`;
      return null;
    }
    case 'moderator':
      return null;
  }
}

function gistOf(kind: PanelCallKind, label: string, parsed: unknown): string {
  switch (kind) {
    case 'verdict': {
      const v = parsed as JudgeVerdict;
      return `${label} ${v.judge} ${v.score}/10 ${v.stance}`;
    }
    case 'turn':
      return `${label}: ${(parsed as DebateTurn).message.slice(0, 120)}`;
    case 'revote':
    case 'appeal': {
      const r = parsed as Revote;
      return `${label} ${r.judge} ${r.score}/10${r.changed ? ' (changed)' : ''}`;
    }
    case 'moderator':
      return `${label} ${(parsed as ModeratorSynthesis).overall_recommendation}`;
  }
}

function onCallFinished(step: PanelStep, call: PanelFinishedCall): void {
  const pending = step.state.pending[call.role];
  if (!pending || pending.callId !== call.id) return; // stale, duplicate, or a reply this run stopped waiting for
  const label = pending.label;

  let failure: { error: string; code: string | null } | null = null;
  let parsed: unknown = undefined;
  if (call.status === 'failed' || call.valid === false) {
    failure = { error: call.error ?? '(no error text was recorded)', code: call.errorCode ?? (call.valid === false ? 'SCHEMA_INVALID' : null) };
  } else {
    const result = AGENT_SCHEMAS[SCHEMA_BY_KIND[pending.kind]].safeParse(call.parsed);
    if (result.success) {
      parsed = result.data;
      const issue = contextIssue(step, call.role, pending.kind, parsed);
      if (issue) failure = { error: issue, code: 'SCHEMA_INVALID' };
    } else {
      failure = { error: formatZodIssues(result.error), code: 'SCHEMA_INVALID' };
    }
  }

  step.state.calls.push({
    callId: call.id,
    role: call.role,
    stage: call.stage,
    label,
    provider: call.provider,
    model: call.model,
    attempt: call.attempt,
    status: call.status,
    usage: call.usage ?? null,
  });
  const facts = { call_id: call.id, stage: call.stage, role: call.role, provider: call.provider, model: call.model, attempt: call.attempt, label };
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
      gist: failure ? failure.error.slice(0, 200) : gistOf(pending.kind, label, parsed),
    });
  }

  delete step.state.pending[call.role];
  if (failure) return onCallFailed(step, call, pending, failure.error, failure.code);

  switch (pending.kind) {
    case 'verdict':
      return onVerdict(step, call, label, parsed as JudgeVerdict);
    case 'turn':
      return onTurn(step, call, label, parsed as DebateTurn);
    case 'revote':
      return onRevote(step, call, label, parsed as Revote);
    case 'appeal':
      return onAppealRescore(step, call, label, parsed as Revote);
    case 'moderator':
      return onModerator(step, call, label, parsed as ModeratorSynthesis);
  }
}

const pendingOf = (step: PanelStep, kind: PanelCallKind): PanelRole[] =>
  (Object.entries(step.state.pending) as [PanelRole, PendingCall][]).filter(([, p]) => p.kind === kind).map(([r]) => r);

function onCallFailed(step: PanelStep, call: PanelFinishedCall, pending: PendingCall, error: string, code: string | null): void {
  const halted = step.state.haltReason !== null;
  const why = `${code ?? 'ERROR'}: ${error}`;

  if (pending.kind === 'appeal') {
    // An appeal is outside the run proper: no repair over budget, and a failure costs only that re-score.
    if (code === 'SCHEMA_INVALID' && call.attempt === 1) {
      const refusal = queueCalls(step, [repairSpec(call, pending, error)]);
      if (!refusal) return;
    }
    step.warn({ kind: 'appeal_failed', detail: `${call.role}'s appeal re-score failed (${why})`, judges: [call.role as JudgeRole] });
    return settleAppeal(step);
  }

  if (pending.kind === 'moderator') {
    if (halted) return factOnly(step, `the partial synthesis failed (${why})`);
    if (code === 'SCHEMA_INVALID' && call.attempt === 1) {
      queueOrHalt(step, [repairSpec(call, pending, error)]);
      return;
    }
    const reason = code === 'SCHEMA_INVALID' ? `FAILED_SCHEMA: moderator reply failed its schema twice: ${error}` : `moderator call failed (${why})`;
    step.state.haltReason = reason;
    step.go('HALTED', reason, [call.id]);
    step.emit('run_halted', { reason });
    return factOnly(step, 'the moderator failed, so no model wrote the synthesis');
  }

  const judge = call.role as JudgeRole;
  if (halted) {
    // After a halt only the moderator is called: a judge's bad reply is dropped, not repaired.
    step.warn({ kind: pending.kind === 'revote' ? 'revote_failed' : 'verdict_dropped', detail: `${judge}'s ${pending.kind} after the halt was unusable (${why})`, judges: [judge] });
    return closeAfterHaltIfSettled(step);
  }
  if (code === 'SCHEMA_INVALID' && call.attempt === 1) {
    queueOrHalt(step, [repairSpec(call, pending, error)]);
    return;
  }
  if (pending.kind === 'revote') {
    // A re-vote is a refinement: the judge keeps its baseline score and the run says so.
    step.warn({ kind: 'revote_failed', detail: `${judge}'s re-vote failed (${why}); its score stays at ${step.state.revoteBaseline?.[judge]}`, judges: [judge] });
    if (pendingOf(step, 'revote').length === 0) finishRevote(step);
    return;
  }
  // A missing judge or a missing turn is not a panel any more (seed 003: "a missing judge is a bug").
  const reason = code === 'SCHEMA_INVALID' ? `FAILED_SCHEMA: ${judge} ${pending.kind} failed its schema twice: ${error}` : `${judge} ${pending.kind} call failed (${why})`;
  halt(step, reason, { refs: [call.id], usageLimitProvider: code === 'USAGE_LIMIT' ? call.provider : null });
}

// ---------------------------------------------------------------------------------------------
// Roast

function onStart(step: PanelStep): void {
  if (step.state.status !== 'queued' || step.state.stage !== 'INIT') return;
  step.state.status = 'running';
  step.emit('run_started', { workspace: null });
  step.go('ROAST', `the panel convenes on "${step.config.idea.title}": five judges score it in parallel`);
  enterPhase(step, 'roast');
  dispatchJudges(step, [...JUDGES], null);
}

/** The judges of one roast attempt, all at once; `why` is the weakness each retried judge is nudged about. */
function dispatchJudges(step: PanelStep, judges: JudgeRole[], why: Partial<Record<JudgeRole, string[]>> | null): void {
  const retry = step.state.roastRetries;
  const current = new Map(currentVerdicts(step.state).map((v) => [v.judge, v]));
  let n = step.peek('V');
  const specs = judges.map((judge) => {
    const nudge = why ? `${JUDGE_NUDGES[judge]}\nYour last verdict was sent back: ${(why[judge] ?? []).join('; ')}` : null;
    return freshSpec(step, judge, 'verdict', `V${n++}`, 'V', judgePack(step.state, judge, nudge, why ? (current.get(judge) ?? null) : null));
  });
  const refusal = queueCalls(step, specs);
  const queued = refusal ? judges.slice(0, refusal.index) : judges;
  step.state.roastBatch = queued;
  if (queued.length) step.emit('judges_dispatched', retry > 0 ? { judges: queued, round: retry } : { judges: queued });
  if (refusal) halt(step, refusal.reason, { refs: [refusal.cap] });
}

function onVerdict(step: PanelStep, call: PanelFinishedCall, label: string, body: JudgeVerdict): void {
  const record: JudgeVerdictRecord = { id: step.id(label), label, callId: call.id, judge: body.judge, attempt: step.state.roastRetries, body };
  step.state.verdicts.push(record);
  step.records.push({ kind: 'judge_verdict', record });
  const batch = step.state.roastBatch;
  const waiting = pendingOf(step, 'verdict');
  step.emit('judge_verdict_completed', {
    judge: body.judge,
    verdict: body,
    completed: batch.filter((j) => !waiting.includes(j)).length,
    total: Math.max(batch.length, 1),
  });
  if (step.state.haltReason !== null) return closeAfterHaltIfSettled(step);
  if (waiting.length === 0) onRoastComplete(step);
}

function onRoastComplete(step: PanelStep): void {
  const verdicts = currentVerdicts(step.state);
  const quality = assessPanel(verdicts.map((v) => v.body));
  step.state.quality = quality;
  step.records.push({ kind: 'panel_quality', attempt: step.state.roastRetries, quality });
  step.emit('roast_panel_completed', { scores: currentScores(step.state), quality });
  const refs = verdicts.map((v) => v.label);

  switch (quality.status) {
    case 'collapsed':
      return fail(step, `panel collapsed: ${quality.reasons.filter((r) => r.startsWith('lens collapse')).join('; ')} (max Jaccard ${quality.figures.max_jaccard})`, refs);
    case 'weak': {
      if (step.state.roastRetries >= MAX_PANEL_RETRIES) {
        return fail(step, `panel still weak after ${MAX_PANEL_RETRIES} retries: ${quality.reasons.join('; ')}`, refs);
      }
      step.state.roastRetries += 1;
      const judges = quality.weak_judges;
      step.emit('panel_retry', { attempt: step.state.roastRetries, reasons: quality.reasons, judges });
      const why: Partial<Record<JudgeRole, string[]>> = {};
      for (const j of judges) why[j] = quality.reasons.filter((r) => r.startsWith(`${j}:`)).map((r) => r.slice(j.length + 1).trim());
      return dispatchJudges(step, judges, why);
    }
    case 'uniform':
      step.state.lowConfidence = true;
      step.warn({ kind: 'uniform', detail: `${quality.reasons.join('; ')}; the result is flagged low-confidence` });
      return startDebate(step, refs);
    case 'ok':
      return startDebate(step, refs);
  }
}

/** The run fails with the measured figures: nothing a moderator could fairly synthesize. */
function fail(step: PanelStep, reason: string, refs: string[]): void {
  step.state.haltReason = reason;
  step.go('HALTED', reason, refs);
  step.state.status = 'failed';
  closePhases(step);
  emitMetrics(step);
  step.emit('run_failed', { reason });
}

// ---------------------------------------------------------------------------------------------
// Debate

function startDebate(step: PanelStep, refs: string[]): void {
  const rounds = step.config.max_debate_rounds;
  if (rounds === 0) return afterDebate(step, 'max_debate_rounds is 0: no debate', refs);
  step.go('DEBATE', `panel ${step.state.quality?.status ?? 'assessed'}: ${rounds} debate round${rounds === 1 ? '' : 's'} in fixed order`, refs);
  enterPhase(step, 'debate');
  step.state.debateRound = 1;
  callSpeaker(step, JUDGES[0]);
}

function callSpeaker(step: PanelStep, judge: JudgeRole): void {
  const label = `D${step.peek('D')}`;
  queueOrHalt(step, [freshSpec(step, judge, 'turn', label, 'D', debatePack(step.state, judge, label))]);
}

function onTurn(step: PanelStep, call: PanelFinishedCall, label: string, body: DebateTurn): void {
  const record: DebateTurnRecord = { id: step.id(label), label, callId: call.id, speaker: body.speaker, round: body.round, body };
  step.state.turns.push(record);
  step.records.push({ kind: 'debate_turn', record });
  step.emit('debate_message_published', {
    speaker: body.speaker,
    round: body.round,
    message: body.message,
    label,
    ...(body.responds_to?.length ? { responds_to: body.responds_to } : {}),
  });
  // The code picks the next speaker: the fixed order, then the next round, then the re-vote.
  const next = JUDGES.indexOf(body.speaker) + 1;
  if (next < JUDGES.length) return callSpeaker(step, JUDGES[next]);
  if (step.state.debateRound < step.config.max_debate_rounds) {
    step.state.debateRound += 1;
    return callSpeaker(step, JUDGES[0]);
  }
  afterDebate(step, `debate done: ${step.state.turns.length} messages in ${step.state.debateRound} round${step.state.debateRound === 1 ? '' : 's'}`, [label]);
}

function afterDebate(step: PanelStep, why: string, refs: string[]): void {
  if (step.config.revote) return startRevote(step, why, refs);
  startModerate(step, `${why}; re-vote off`, refs);
}

// ---------------------------------------------------------------------------------------------
// Re-vote

function startRevote(step: PanelStep, why: string, refs: string[]): void {
  step.go('REVOTE', `${why}: each judge re-scores against the whole debate (±${REVOTE_CAP})`, refs);
  enterPhase(step, 'revote');
  const baseline = currentScores(step.state);
  step.state.revoteBaseline = baseline;
  step.emit('revote_started', { baseline });
  let n = step.peek('RV');
  const specs = (Object.keys(baseline) as JudgeRole[]).map((judge) =>
    freshSpec(step, judge, 'revote', `RV${n++}`, 'RV', revotePack(step.state, judge, baseline[judge]!)),
  );
  queueOrHalt(step, specs);
}

function rescoreRecord(step: PanelStep, call: PanelFinishedCall, label: string, body: Revote, phase: RevoteRecord['phase'], previous: number): RevoteRecord {
  const score = clampRevote(previous, body.score);
  return {
    id: step.id(label),
    label,
    callId: call.id,
    judge: body.judge,
    phase,
    previous,
    requested: body.score,
    score,
    capped: score !== body.score,
    body,
  };
}

function onRevote(step: PanelStep, call: PanelFinishedCall, label: string, body: Revote): void {
  const previous = step.state.revoteBaseline?.[body.judge];
  if (previous === undefined) return;
  const record = rescoreRecord(step, call, label, body, 'revote', previous);
  step.state.revotes.push(record);
  step.records.push({ kind: 'revote', record });
  const moved = record.score !== previous;
  step.emit('revote_judge_completed', {
    judge: record.judge,
    score: record.score,
    previous,
    delta: record.score - previous,
    change_reason: moved ? (body.change_reason ?? null) : null,
    ...(record.capped ? { capped: true } : {}),
  });
  if (step.state.haltReason !== null) return closeAfterHaltIfSettled(step);
  if (pendingOf(step, 'revote').length === 0) finishRevote(step);
}

function finishRevote(step: PanelStep): void {
  const revotes = step.state.revotes.filter((r) => r.phase === 'revote');
  const a = assessRevote(step.state.revoteBaseline ?? {}, revotes.map((r) => r.body));
  if (a.herd) {
    step.warn({
      kind: 'herding',
      detail: `${a.herd.judges.length} judges moved by ${a.herd.delta > 0 ? '+' : ''}${a.herd.delta} together (${a.herd.judges.join(', ')}): persuasion or herding?`,
      judges: a.herd.judges,
    });
  }
  if (a.unexplained.length) step.warn({ kind: 'unexplained', detail: `score moved without a reason: ${a.unexplained.join(', ')}`, judges: a.unexplained });
  if (a.capped.length) {
    const detail = revotes
      .filter((r) => r.capped)
      .map((r) => `${r.judge} asked for ${r.requested}, capped at ${r.score} (±${REVOTE_CAP} from ${r.previous})`)
      .join('; ');
    step.warn({ kind: 'revote_capped', detail, judges: a.capped });
  }
  startModerate(step, `re-vote done: ${revotes.filter((r) => r.score !== r.previous).length} of ${revotes.length} judges moved`, revotes.map((r) => r.label));
}

// ---------------------------------------------------------------------------------------------
// Moderator and the close

function moderatorSpec(step: PanelStep): CallSpec {
  const label = `M${step.peek('M')}`;
  return freshSpec(step, 'moderator', 'moderator', label, 'M', moderatorPack(step.state));
}

function startModerate(step: PanelStep, why: string, refs: string[]): void {
  step.go('MODERATE', why, refs);
  enterPhase(step, 'moderate');
  queueOrHalt(step, [moderatorSpec(step)]);
}

function completion(step: PanelStep): PanelCompletion {
  const m = step.state.moderator;
  return {
    recommendation: m?.body?.overall_recommendation ?? null,
    synthesis: m?.body ?? null,
    partial: m?.partial ?? true,
    quality: step.state.quality,
    low_confidence: step.state.lowConfidence,
    scores: currentScores(step.state),
    warnings: step.state.warnings,
  };
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

function emitMetrics(step: PanelStep): void {
  const s = step.state;
  step.emit('run_metrics', {
    phase_seconds: Object.fromEntries(Object.entries(s.phaseSeconds).map(([k, v]) => [k, round3(v)])),
    tokens: s.usage.used.tokens,
    cost_usd: s.usage.used.costUsd,
    calls: s.calls.map((c) => ({
      call_id: c.callId,
      role: c.role,
      stage: c.stage,
      label: c.label,
      provider: c.provider,
      model: c.model,
      attempt: c.attempt,
      status: c.status,
      input_tokens: c.usage?.inputTokens ?? null,
      output_tokens: c.usage?.outputTokens ?? null,
      cost_usd: c.usage?.costUsd ?? null,
      latency_ms: c.usage?.latencyMs ?? null,
    })),
  });
}

function finish(step: PanelStep, status: RunStatus): void {
  closePhases(step);
  emitMetrics(step);
  const body = step.state.moderator?.body ?? null;
  step.state.status = status;
  step.emit('run_completed', { status, verdict: body?.overall_recommendation ?? null, confidence: body?.confidence ?? null, panel: completion(step) });
}

function onModerator(step: PanelStep, call: PanelFinishedCall, label: string, body: ModeratorSynthesis): void {
  const halted = step.state.haltReason !== null;
  const record: ModeratorRecord = { id: step.id(label), label, callId: call.id, partial: halted, body };
  step.state.moderator = record;
  step.records.push({ kind: 'moderator_synthesis', record });
  step.emit('moderator_completed', { synthesis: body });
  step.go('DONE', halted ? `partial synthesis ${label} recorded after the halt` : `${label}: ${body.overall_recommendation}`, [label]);
  finish(step, halted ? 'halted' : 'done');
}

interface HaltOptions {
  refs?: string[];
  /** A moderator repair refused by the budget: it becomes the moderator's one call. */
  pendingModerator?: CallSpec;
  /** The provider that reported a usage limit; if it is the moderator's, no call is attempted. */
  usageLimitProvider?: string | null;
}

/**
 * Any stage → HALTED; once the calls already in flight have landed (their replies are paid
 * for and recorded), → MODERATE(partial) with exactly one moderator call, exempt from the
 * budget, or a fact-only close when the moderator's own provider is the exhausted one.
 */
function halt(step: PanelStep, reason: string, opts: HaltOptions = {}): void {
  if (step.state.haltReason !== null) return factOnly(step, `halted again while halted: ${reason}`);
  step.state.haltReason = reason;
  step.go('HALTED', reason, opts.refs ?? []);
  step.emit('run_halted', { reason });
  if (opts.usageLimitProvider && opts.usageLimitProvider === step.config.moderator.provider) {
    step.state.moderatorBlocked = `the moderator's provider ${opts.usageLimitProvider} reported a usage limit`;
  }
  closeAfterHaltIfSettled(step, opts.pendingModerator);
}

function closeAfterHaltIfSettled(step: PanelStep, pendingModerator?: CallSpec): void {
  if (Object.keys(step.state.pending).length > 0) return; // the calls in flight land first
  const provider = step.config.moderator.provider;
  if (providerExhausted(usageAfterStep(step), step.config.budget, provider)) {
    return factOnly(step, `the moderator's provider ${provider} has reached its own budget cap`);
  }
  if (step.state.moderatorBlocked) return factOnly(step, step.state.moderatorBlocked);
  step.go('MODERATE', 'partial synthesis after the halt: the moderator gets exactly one call, even over budget');
  enterPhase(step, 'moderate');
  queueCalls(step, [pendingModerator ?? moderatorSpec(step)], { exempt: true });
}

/** The close without a model: a synthesis row with no body, written from the records alone. */
function factOnly(step: PanelStep, why: string): void {
  const label = `M${step.bump('M')}`;
  const record: ModeratorRecord = { id: step.id(label), label, callId: null, partial: true, body: null };
  step.state.moderator = record;
  step.records.push({ kind: 'moderator_synthesis', record });
  if (step.state.stage !== 'DONE') step.go('DONE', `fact-only close: ${why}`, [label]);
  finish(step, 'halted');
}

// ---------------------------------------------------------------------------------------------
// Appeal

function onAppeal(step: PanelStep, evidence: readonly string[], judges: readonly JudgeRole[], caps: Partial<Record<string, number>>): void {
  if (!canAppeal(step.state).ok) return;
  const items = evidence.map((e) => e.trim()).filter(Boolean);
  const scores = currentScores(step.state);
  const chosen = JUDGES.filter((j) => judges.includes(j) && scores[j] !== undefined);
  if (items.length === 0 || chosen.length === 0) return;
  // Raised caps apply from this appeal on (they stay raised even if the budget still refuses it).
  const raised = Object.fromEntries(Object.entries(caps).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
  if (Object.keys(raised).length) step.state.config = { ...step.config, budget: { ...step.config.budget, ...raised } };

  const previous: Partial<Record<JudgeRole, number>> = {};
  for (const j of chosen) previous[j] = scores[j];
  // The appeal's packs read the previous scores, so the state carries the appeal before the calls are built.
  step.state.appeal = { evidence: items, judges: chosen, status: 'running', previous };
  let n = step.peek('AP');
  const specs = chosen.map((judge) => freshSpec(step, judge, 'appeal', `AP${n++}`, 'AP', appealPack(step.state, judge, scores[judge]!, items), 'APPEAL'));
  const refusal = queueCalls(step, specs, { allOrNothing: true });
  if (refusal) {
    // Nothing was asked, so the run still has its one appeal.
    step.state.appeal = null;
    step.warn({
      kind: 'appeal_refused',
      detail: `the appeal does not fit the budget: ${refusal.reason}; the run still has its appeal: ask again with caps raised (e.g. "caps": { "max_calls": ${step.config.budget.max_calls + chosen.length} })`,
      judges: chosen,
    });
    return;
  }
  step.emit('appeal_started', { judges: chosen, scores: previous, ...(Object.keys(raised).length ? { caps: raised } : {}) });
}

function onAppealRescore(step: PanelStep, call: PanelFinishedCall, label: string, body: Revote): void {
  const previous = step.state.appeal?.previous[body.judge];
  if (previous === undefined) return;
  const record = rescoreRecord(step, call, label, body, 'appeal', previous);
  step.state.revotes.push(record);
  step.records.push({ kind: 'revote', record });
  settleAppeal(step);
}

function settleAppeal(step: PanelStep): void {
  const appeal = step.state.appeal;
  if (!appeal || appeal.status !== 'running' || pendingOf(step, 'appeal').length > 0) return;
  step.state.appeal = { ...appeal, status: 'completed' };
  const rescored = step.state.revotes.filter((r) => r.phase === 'appeal');
  const scores: Partial<Record<JudgeRole, number>> = {};
  const reasons: Partial<Record<JudgeRole, string>> = {};
  for (const r of rescored) {
    scores[r.judge] = r.score;
    if (r.score !== r.previous && r.body.change_reason) reasons[r.judge] = r.body.change_reason;
  }
  step.emit('appeal_completed', { judges: appeal.judges, scores, previous: appeal.previous, change_reasons: reasons });
}
