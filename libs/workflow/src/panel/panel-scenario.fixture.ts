import {
  AGENT_SCHEMAS,
  formatZodIssues,
  JUDGES,
  PanelProjectConfig,
  type DebateTurn,
  type JudgeRole,
  type JudgeVerdict,
  type ModeratorSynthesis,
  type PanelProjectConfigInput,
  type PanelRole,
  type Revote,
} from '@roundtable/contracts';
import { replayProviders, templatesFromPlaceholders, WorkflowDriver } from '../engine/workflow-driver.fixture';
import { initialPanelState } from './initial-panel-state';
import { PANEL_PLACEHOLDERS } from './panel-context-packs';
import type {
  PanelAgentCallCommand,
  PanelDecision,
  PanelEvent,
  PanelFinishedCall,
  PanelPromptTemplates,
  PanelRecord,
  PanelRunState,
  PanelStepResult,
} from './panel-types';
import { decidePanel } from './panel.workflow';

/**
 * Test-only helpers for the panel, the twin of build-scenario.fixture.ts: tiny templates from
 * the placeholder lists, reply bodies, and a driver that feeds events to decidePanel() the way
 * the orchestrator and provider workers would — calls in flight in parallel, replies validated
 * against their schema like the worker does, usage reserved and settled — checking on every
 * step that the input state is untouched and every event matches its catalogue schema.
 */

export const TEST_PANEL_TEMPLATES = templatesFromPlaceholders<PanelPromptTemplates>(PANEL_PLACEHOLDERS);

const agent = (provider: string, model: string) => ({ provider, model, timeout_s: 60, max_tokens: 2000, temperature: 0.3 });

export const TEST_IDEA = {
  title: 'Flatmate grocery list',
  description: 'A shared grocery list for people who share a flat, with who-bought-what and a running balance.',
  target_user: 'students and young professionals sharing a flat',
  evidence: ['12 of 20 flats we visited keep a paper list on the fridge', '3 flats use a WhatsApp group for it'],
};

export function testPanelConfig(overrides: Partial<PanelProjectConfigInput> = {}): PanelProjectConfig {
  return PanelProjectConfig.parse({
    workflow: 'panel',
    project: 'panel-demo',
    idea: TEST_IDEA,
    providers: replayProviders('anthropic', 'openai', 'xai', 'ollama'),
    judges: {
      vc: agent('anthropic', 'claude-sonnet-4-5'),
      engineer: agent('openai', 'gpt-5'),
      pm: agent('xai', 'grok-4'),
      customer: agent('ollama', 'qwen3:30b-a3b'),
      competitor: agent('xai', 'grok-4'),
    },
    moderator: agent('anthropic', 'claude-sonnet-4-5'),
    ...overrides,
  });
}

// ---- reply bodies -------------------------------------------------------------------------

const DEFAULT_VERDICTS: Record<JudgeRole, Omit<JudgeVerdict, 'judge'>> = {
  vc: {
    score: 4,
    stance: 'against',
    top_concerns: ['revenue per flat is a few dollars a month at best', 'no paid acquisition channel reaches flatmates cheaply'],
    evidence: ['Splitwise monetises under 5 % of its users', 'app-store CPI for lifestyle apps runs near $2.50'],
    what_would_change_my_mind: '100 flats paying $3 a month after a free trial',
    confidence: 0.6,
  },
  engineer: {
    score: 7,
    stance: 'mixed',
    top_concerns: ['offline edits on two phones conflict', 'bank-balance maths must never drift by a cent'],
    evidence: ['the prototype lost 2 of 50 edits in a two-phone conflict test', 'integer cents avoid float drift in balances'],
    what_would_change_my_mind: 'a CRDT list passing the two-phone conflict test',
    confidence: 0.7,
  },
  pm: {
    score: 6,
    stance: 'mixed',
    top_concerns: ['value appears only after a second flatmate joins', 'weekly shopping is a low-frequency habit'],
    evidence: ['9 of 14 pilot flats invited a second member within a day', 'median pilot flat shopped 1.6 times a week'],
    what_would_change_my_mind: 'week-4 retention above 40 % in the pilot',
    confidence: 0.55,
  },
  customer: {
    score: 8,
    stance: 'for',
    top_concerns: ['I would only switch if my flatmates do', 'I will not type prices in by hand'],
    evidence: ['I argue about who bought milk every week', 'our fridge list got thrown away twice this month'],
    what_would_change_my_mind: 'having to enter every price manually',
    confidence: 0.65,
  },
  competitor: {
    score: 3,
    stance: 'against',
    top_concerns: ['Google Keep already shares checklists for free', 'Splitwise could add a list tab in a sprint'],
    evidence: ['Keep has had shared checklists since 2014', 'Splitwise already holds the flat-balance relationship'],
    what_would_change_my_mind: 'a receipt-scanning moat Keep and Splitwise lack',
    confidence: 0.6,
  },
};

export function verdictBody(judge: JudgeRole, over: Partial<JudgeVerdict> = {}): JudgeVerdict {
  return { judge, ...DEFAULT_VERDICTS[judge], ...over };
}

export function turnBody(speaker: JudgeRole, round: number, over: Partial<DebateTurn> = {}): DebateTurn {
  return { speaker, round, message: `${speaker} in round ${round}: my lens says something specific`, ...over };
}

/** A re-vote from `previous` to `score`, with a reason when it moved. */
export function revoteBody(judge: JudgeRole, score: number, previous: number, over: Partial<Revote> = {}): Revote {
  const changed = score !== previous;
  return { judge, score, changed, change_reason: changed ? `D${JUDGES.indexOf(judge) + 1} moved me` : null, confidence: 0.6, ...over };
}

export function moderatorBody(over: Partial<ModeratorSynthesis> = {}): ModeratorSynthesis {
  return {
    overall_recommendation: 'ITERATE',
    confidence: 0.6,
    top_strengths: ['a weekly, felt pain (customer)'],
    top_risks: ['free incumbents (competitor)'],
    top_problems: ['revenue per flat (vc)'],
    biggest_disagreement: 'customer (8) vs competitor (3) on whether free lists are good enough',
    recommended_experiment: 'a two-week pilot in 20 flats measuring week-2 retention and receipt scans',
    ...over,
  };
}

// ---- the driver ---------------------------------------------------------------------------

export interface PanelReplyOptions {
  tokens?: number;
  costUsd?: number;
  /** Seconds of wall clock that pass before this reply lands. */
  seconds?: number;
}

export class PanelDriver extends WorkflowDriver<PanelRunState, PanelEvent, PanelStepResult, PanelDecision, PanelRecord> {
  /** Every call ever queued, in order. */
  readonly calls: PanelAgentCallCommand[] = [];
  /** Calls queued and not yet answered, in the order they were queued. */
  inFlight: PanelAgentCallCommand[] = [];

  constructor(
    config: PanelProjectConfig = testPanelConfig(),
    readonly templates: PanelPromptTemplates = TEST_PANEL_TEMPLATES,
    runId = 'run1',
  ) {
    super(initialPanelState(runId, config), (state, event, prices) => decidePanel(state, event, { templates, prices }), 'decidePanel');
  }

  step(event: PanelEvent): PanelStepResult {
    const result = this.run(event);
    for (const c of result.commands) {
      this.calls.push(c);
      this.inFlight.push(c);
      this.reserve(c, 1);
    }
    return result;
  }

  private settle(call: PanelAgentCallCommand, opts: PanelReplyOptions): void {
    this.settleUsage(call, { calls: 1, tokens: opts.tokens ?? call.estimatedTokens + 50, costUsd: opts.costUsd ?? 0.01 }, opts.seconds ?? 1);
  }

  /** The in-flight call of `role` (at most one per role is ever in flight). */
  pending(role: PanelRole): PanelAgentCallCommand {
    const call = this.inFlight.find((c) => c.role === role);
    if (!call) throw new Error(`no ${role} call is in flight (in flight: ${this.inFlight.map((c) => c.role).join(', ') || 'none'})`);
    return call;
  }

  pendingRoles(): PanelRole[] {
    return this.inFlight.map((c) => c.role);
  }

  private take(role: PanelRole): PanelAgentCallCommand {
    const call = this.pending(role);
    this.inFlight = this.inFlight.filter((c) => c !== call);
    return call;
  }

  private finished(call: PanelAgentCallCommand, patch: Partial<PanelFinishedCall>): PanelFinishedCall {
    return this.finishedOf(call, { usage: { inputTokens: call.estimatedTokens, outputTokens: 50, costUsd: 0.01, latencyMs: 900 }, ...patch });
  }

  start(): PanelStepResult {
    return this.step({ type: 'start' });
  }

  /** A reply for `role`'s call in flight, validated against its schema as the provider-worker does. */
  reply(role: PanelRole, parsed: unknown, opts: PanelReplyOptions = {}): PanelStepResult {
    const call = this.take(role);
    this.settle(call, opts);
    const check = AGENT_SCHEMAS[call.schemaName].safeParse(parsed);
    const patch: Partial<PanelFinishedCall> = check.success
      ? { parsed, responseText: JSON.stringify(parsed) }
      : { parsed, responseText: JSON.stringify(parsed), valid: false, error: formatZodIssues(check.error), errorCode: 'SCHEMA_INVALID' };
    return this.step({ type: 'agent_call_finished', call: this.finished(call, patch) });
  }

  /** A call that failed before a usable reply (guard, provider error, usage limit); `patch` adds retry facts. */
  fail(role: PanelRole, errorCode: string, error: string, patch: Partial<PanelFinishedCall> = {}): PanelStepResult {
    const call = this.take(role);
    this.settle(call, { tokens: 0, costUsd: 0 });
    return this.step({ type: 'agent_call_finished', call: this.finished(call, { status: 'failed', valid: null, error, errorCode, usage: undefined, ...patch }) });
  }

  /**
   * A valid reply that came only after the provider-worker retried transient failures: the
   * last try reports, under its own row id, with the earlier tries (the queued call among them).
   */
  replyAfterRetries(role: PanelRole, parsed: unknown, retries: { error: string; errorCode: string }[]): PanelStepResult {
    const call = this.take(role);
    this.settle(call, {});
    const tries = [call.callId, ...retries.slice(1).map((_, i) => `${call.callId}-retry${i + 1}`)];
    const priorAttempts = retries.map((r, i) => ({ id: tries[i], ...r }));
    const last = { id: `${call.callId}-retry${retries.length}`, parsed, responseText: JSON.stringify(parsed), retry: retries.length, priorAttempts };
    return this.step({ type: 'agent_call_finished', call: this.finished(call, last) });
  }

  cancel(reason?: string): PanelStepResult {
    return this.step({ type: 'cancel', reason });
  }

  appeal(evidence: string[], judges: JudgeRole[], caps?: Partial<Record<string, number>>): PanelStepResult {
    return this.step({ type: 'appeal', evidence, judges, ...(caps ? { caps } : {}) });
  }

  /** Answers every verdict call in flight, in the given order (default: reverse speaker order, to show order does not matter). */
  roast(bodies: Partial<Record<JudgeRole, JudgeVerdict>> = {}, order: JudgeRole[] = [...JUDGES].reverse()): void {
    for (const judge of order) {
      if (this.inFlight.some((c) => c.role === judge && c.schemaName === 'JudgeVerdict')) this.reply(judge, bodies[judge] ?? verdictBody(judge));
    }
  }

  /** Answers one full debate round, speaker by speaker. */
  debateRound(round: number, over: Partial<Record<JudgeRole, Partial<DebateTurn>>> = {}): void {
    for (const judge of JUDGES) this.reply(judge, turnBody(judge, round, over[judge]));
  }

  /** Answers every re-vote in flight; a judge missing from `scores` keeps its previous score. */
  revote(scores: Partial<Record<JudgeRole, number>> = {}, over: Partial<Record<JudgeRole, Partial<Revote>>> = {}): void {
    const baseline = this.state.revoteBaseline ?? {};
    for (const judge of JUDGES) {
      if (!this.inFlight.some((c) => c.role === judge && c.schemaName === 'Revote')) continue;
      const previous = baseline[judge]!;
      this.reply(judge, revoteBody(judge, scores[judge] ?? previous, previous, over[judge]));
    }
  }

  /** The rendered prompt of `role`'s call in flight. */
  prompt(role: PanelRole): string {
    return this.pending(role).messages.map((m) => m.content).join('\n');
  }
}

/** A whole clean panel: roast, `rounds` debate rounds, the re-vote, the moderator. */
export function panelHappyPath(overrides: Partial<PanelProjectConfigInput> = { max_debate_rounds: 2 }): PanelDriver {
  const d = new PanelDriver(testPanelConfig(overrides));
  d.start();
  d.roast();
  for (let r = 1; r <= d.state.config.max_debate_rounds; r += 1) d.debateRound(r);
  if (d.state.config.revote) d.revote({ vc: 5, customer: 7 });
  d.reply('moderator', moderatorBody());
  return d;
}

// ---- replay -------------------------------------------------------------------------------

export interface CassetteEntry {
  role: string;
  reply: unknown;
  expects?: string[];
  forbids?: string[];
}

export interface ReplayOptions {
  /** Which call in flight answers first: the oldest or the newest (parallel calls land in any order). */
  order?: 'fifo' | 'lifo';
}

/**
 * Drives the calls in flight from a cassette the way the replay provider does: replies are
 * consumed in order per role, `expects` / `forbids` guard the rendered prompt, and an
 * exhausted role fails its call. Returns the number of replies each role consumed.
 */
export function replayCassette(d: PanelDriver, replies: readonly CassetteEntry[], used: Record<string, number> = {}, opts: ReplayOptions = {}): Record<string, number> {
  const order = opts.order ?? 'fifo';
  while (d.inFlight.length > 0) {
    const call = order === 'fifo' ? d.inFlight[0] : d.inFlight[d.inFlight.length - 1];
    const ordinal = used[call.role] ?? 0;
    const entry = replies.filter((r) => r.role === call.role)[ordinal];
    used[call.role] = ordinal + 1;
    if (!entry) {
      d.fail(call.role, 'REPLAY_EXHAUSTED', `no reply #${ordinal + 1} for role ${call.role}`);
      continue;
    }
    const prompt = call.messages.map((m) => m.content).join('\n');
    const missing = (entry.expects ?? []).find((s) => !prompt.includes(s));
    const present = (entry.forbids ?? []).find((s) => prompt.includes(s));
    if (missing !== undefined || present !== undefined) {
      const what = missing !== undefined ? `does not contain expected "${missing}"` : `contains forbidden "${present}"`;
      d.fail(call.role, 'REPLAY_GUARD', `replay guard failed for ${call.role} reply #${ordinal + 1}: the prompt ${what}`);
      continue;
    }
    d.reply(call.role, entry.reply);
  }
  return used;
}
