import { JUDGES, TERMINAL_RUN_STATUSES, type BudgetConfig, type JudgeRole, type NewRunEvent, type RunStatus, type Verdict } from '@roundtable/contracts';
import { critiqueBody, implementationBody, proposalBody, reviewBody, synthesisBody, testConfig, testResult, TEST_TEMPLATES } from '../build/build-scenario.fixture';
import { decide } from '../build/build.workflow';
import type { BuildEvent, BuildRunState, Command } from '../build/build-types';
import { initialBuildState } from '../build/initial-state';
import { initialPanelState } from '../panel/initial-panel-state';
import { moderatorBody, revoteBody, testPanelConfig, TEST_PANEL_TEMPLATES, turnBody, verdictBody } from '../panel/panel-scenario.fixture';
import type { PanelEvent, PanelRunState } from '../panel/panel-types';
import { decidePanel } from '../panel/panel.workflow';
import { agreeing, disagreeing, readingOf, testExperimentConfig, TEST_EXPERIMENT_TEMPLATES } from '../experiment/experiment-scenario.fixture';
import type { ExperimentEvent, ExperimentRunState } from '../experiment/experiment-types';
import { decideExperimentRun } from '../experiment/experiment.workflow';
import { initialExperimentState } from '../experiment/initial-experiment-state';
import type { AgentCallCommandOf, FinishedCallOf, PriceLookup, ScopeCaps, SharedUsage, UsageSnapshot, UsageTotals } from './call-types';
import { deepFreeze } from './workflow-driver.fixture';

/**
 * The engine's promises, for both workflows, under random caps and random replies (valid,
 * invalid, transient failure, usage limit, interrupted, duplicate and late deliveries, a
 * cancel now and then, a halted run resumed once with the caps raised), each run from its own seed:
 * - every call the ledger queued fits every cap with recorded usage plus all reservations, run
 *   and per provider (the provider's counts equal the estimate: input = the prompt estimate,
 *   output ≤ max_tokens, priced at the table price). The one exemption is the closing call
 *   after a halt, "exactly one call, even over budget": at most one per halt;
 * - caps across runs (a team's, a project's: issue 26), shared with other runs that take calls
 *   of their own between this run's steps (as the scope's lock serialises them): every call this
 *   run queued — the closing call included, which is exempt from the run's caps only — fits
 *   every scope cap with all runs' usage and reservations; a refusal by one names its scope;
 * - a duplicate or a late delivery changes nothing;
 * - every run ends terminal; a halted run has exactly one closing call or a fact-only close.
 * - labels are gap-free: per family (P, C, I, R, S; V, D, RV, M), the labels of the queued calls
 *   and of the closing records are 1…n, also after a halted run is resumed once with room (a
 *   fact-only close takes the label of the closing call it stands in for, issue 22);
 * - a transient failure (or an interrupted try, which a redelivery records as failed) is
 *   retried by the engine, as a call of its own through the ledger (so the caps above hold for
 *   retries too), delayed by the backoff, at most once per configured delay; a non-retryable
 *   failure never is. Only the closing call after a halt is exempt, and its retry is not.
 */

// ---- a seeded generator ---------------------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rand {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)];
  }
}

// ---- the orchestrator's side of the ledger ---------------------------------------------------

const PRICES: PriceLookup = (model) =>
  model === 'claude-sonnet-4-5' ? { inputPerMtok: 3, outputPerMtok: 15 } : model === 'grok-4' ? { inputPerMtok: 5, outputPerMtok: 25 } : null;

type AnyCall = AgentCallCommandOf<string, string>;
type Finished = FinishedCallOf<string, string>;

interface Entry {
  provider: string;
  exempt: boolean;
  reserved: UsageTotals | null;
  recorded: UsageTotals | null;
}

function randomBudget(r: Rand, providers: readonly string[]): Partial<BudgetConfig> {
  const per: Record<string, { max_calls?: number; max_tokens?: number; max_cost_usd?: number }> = {};
  for (const p of providers) {
    if (!r.chance(0.3)) continue;
    per[p] = {
      ...(r.chance(0.5) ? { max_calls: r.int(1, 6) } : {}),
      ...(r.chance(0.5) ? { max_tokens: r.int(2000, 15000) } : {}),
      ...(r.chance(0.4) ? { max_cost_usd: r.int(1, 40) / 1000 } : {}),
    };
  }
  // Half the runs tight (a cap or two bite early), half loose (the stage rules run their course).
  const loose = r.chance(0.5);
  return {
    max_calls: loose ? r.int(12, 40) : r.int(1, 16),
    max_tokens: loose ? r.int(60000, 200000) : r.int(2000, 40000),
    ...(r.chance(0.6) ? { max_cost_usd: loose ? r.int(200, 1000) / 1000 : r.int(1, 200) / 1000 } : {}),
    max_rounds: r.int(1, 3),
    max_fix_rounds: r.int(0, 2),
    per_provider: per,
  };
}

/** A team's or a project's caps, and what the other runs of that scope have used (they take calls of their own as the run goes). */
interface Scope {
  scope: string;
  label: string;
  caps: ScopeCaps;
  others: { callsToday: number; usdToday: number; usdTotal: number };
}

function randomScopes(r: Rand): Scope[] {
  const scopes: Scope[] = [];
  for (const [kind, name] of [['teams', 'alpha'], ['projects', 'dd-demo']] as const) {
    if (!r.chance(0.4)) continue;
    const caps: ScopeCaps = {
      ...(r.chance(0.7) ? { max_calls_per_day: r.int(1, 20) } : {}),
      ...(r.chance(0.4) ? { max_usd_per_day: r.int(1, 60) / 1000 } : {}),
      ...(r.chance(0.3) ? { max_usd_total: r.int(1, 100) / 1000 } : {}),
    };
    const callsToday = caps.max_calls_per_day !== undefined ? r.int(0, caps.max_calls_per_day) : r.int(0, 5);
    const usdToday = caps.max_usd_per_day !== undefined ? r.int(0, Math.round(caps.max_usd_per_day * 1000)) / 1000 : 0;
    const usdTotal = Math.min(usdToday + r.int(0, 50) / 1000, Math.max(usdToday, caps.max_usd_total ?? Infinity));
    scopes.push({ scope: `${kind}.${name}`, label: `${kind === 'teams' ? 'team' : 'project'} ${name}`, caps, others: { callsToday, usdToday, usdTotal } });
  }
  return scopes;
}

/** Usage as the orchestrator reads it with the lock: every recorded call and every reservation, exempt ones included. */
class Ledger {
  readonly entries = new Map<string, Entry>();

  private readonly initial: Map<string, Scope['others']>;

  constructor(readonly scopes: Scope[] = []) {
    this.initial = new Map(scopes.map((s) => [s.scope, { ...s.others }]));
  }

  startedAt(scope: string): Scope['others'] {
    return this.initial.get(scope)!;
  }

  /** Every call of this run, recorded or reserved, exempt ones included: a scope cap has no exemption. */
  private mine(): { calls: number; usd: number } {
    const t = this.total(() => true);
    return { calls: t.calls, usd: t.costUsd };
  }

  private sharedNow(): SharedUsage[] {
    const m = this.mine();
    return this.scopes.map((s) => ({
      scope: s.scope,
      label: s.label,
      caps: s.caps,
      used: { callsToday: s.others.callsToday + m.calls, usdToday: s.others.usdToday + m.usd, usdTotal: s.others.usdTotal + m.usd },
    }));
  }

  /** Another run of every scope takes a call between this run's steps, when it fits every cap of the scopes it shares (as its own ledger checks). */
  racingRunTakesACall(r: Rand): void {
    if (this.scopes.length === 0) return;
    const cost = r.int(0, 5) / 1000;
    const fits = this.sharedNow().every(
      (s) =>
        (s.caps.max_calls_per_day === undefined || s.used.callsToday + 1 <= s.caps.max_calls_per_day) &&
        (s.caps.max_usd_per_day === undefined || s.used.usdToday + cost <= s.caps.max_usd_per_day) &&
        (s.caps.max_usd_total === undefined || s.used.usdTotal + cost <= s.caps.max_usd_total),
    );
    if (!fits) return;
    for (const s of this.scopes) s.others = { callsToday: s.others.callsToday + 1, usdToday: s.others.usdToday + cost, usdTotal: s.others.usdTotal + cost };
  }

  queue(c: AnyCall, exempt: boolean): void {
    this.entries.set(c.callId, { provider: c.provider, exempt, reserved: { calls: 1, tokens: c.reservedTokens, costUsd: c.reservedCostUsd }, recorded: null });
  }

  /** Settles a call as the provider reported it: input = the prompt estimate, output ≤ max_tokens. */
  settle(c: AnyCall, r: Rand, replied: boolean): Finished['usage'] {
    const e = this.entries.get(c.callId)!;
    const output = replied ? r.int(0, c.maxTokens) : 0;
    const input = replied ? c.estimatedTokens : 0;
    const price = PRICES(c.model);
    const cost = price ? (input * price.inputPerMtok + output * price.outputPerMtok) / 1_000_000 : 0;
    e.reserved = null;
    e.recorded = { calls: 1, tokens: input + output, costUsd: cost };
    return { inputTokens: input, outputTokens: output, costUsd: price ? cost : null, latencyMs: 10 };
  }

  private total(filter: (e: Entry) => boolean, part: 'both' = 'both'): UsageTotals {
    const t = { calls: 0, tokens: 0, costUsd: 0 };
    for (const e of this.entries.values()) {
      if (!filter(e)) continue;
      for (const u of part === 'both' ? [e.reserved, e.recorded] : []) {
        if (!u) continue;
        t.calls += u.calls;
        t.tokens += u.tokens;
        t.costUsd += u.costUsd;
      }
    }
    return t;
  }

  snapshot(): UsageSnapshot {
    const fold = (key: 'recorded' | 'reserved') => {
      const total = { calls: 0, tokens: 0, costUsd: 0 };
      const by: Record<string, UsageTotals> = {};
      for (const e of this.entries.values()) {
        const u = e[key];
        if (!u) continue;
        const p = (by[e.provider] ??= { calls: 0, tokens: 0, costUsd: 0 });
        for (const t of [total, p]) {
          t.calls += u.calls;
          t.tokens += u.tokens;
          t.costUsd += u.costUsd;
        }
      }
      return { total, by };
    };
    const used = fold('recorded');
    const reserved = fold('reserved');
    const shared = this.scopes.length ? { shared: this.sharedNow() } : {};
    return { used: used.total, usedByProvider: used.by, reserved: reserved.total, reservedByProvider: reserved.by, elapsedSeconds: 0, ...shared };
  }

  /** Every cap holds for recorded usage plus reservations, leaving out only the exempt closing call. */
  assertWithin(budget: BudgetConfig, where: string): void {
    const check = (t: UsageTotals, caps: { max_calls?: number; max_tokens?: number; max_cost_usd?: number }, scope: string) => {
      const over: string[] = [];
      if (caps.max_calls !== undefined && t.calls > caps.max_calls) over.push(`${scope}calls ${t.calls} > ${caps.max_calls}`);
      if (caps.max_tokens !== undefined && t.tokens > caps.max_tokens) over.push(`${scope}tokens ${t.tokens} > ${caps.max_tokens}`);
      if (caps.max_cost_usd !== undefined && t.costUsd > caps.max_cost_usd + 1e-12) over.push(`${scope}cost ${t.costUsd} > ${caps.max_cost_usd}`);
      if (over.length) throw new Error(`${where}: ${over.join('; ')}`);
    };
    check(this.total((e) => !e.exempt), budget, '');
    // The other runs' figures start within the caps (or at them) and grow only when they fit: anything over is this run's doing.
    for (const s of this.sharedNow()) {
      const over: string[] = [];
      if (s.caps.max_calls_per_day !== undefined && s.used.callsToday > Math.max(s.caps.max_calls_per_day, this.startedAt(s.scope).callsToday)) over.push(`calls today ${s.used.callsToday} > ${s.caps.max_calls_per_day}`);
      if (s.caps.max_usd_per_day !== undefined && s.used.usdToday > Math.max(s.caps.max_usd_per_day, this.startedAt(s.scope).usdToday) + 1e-12) over.push(`usd today ${s.used.usdToday} > ${s.caps.max_usd_per_day}`);
      if (s.caps.max_usd_total !== undefined && s.used.usdTotal > Math.max(s.caps.max_usd_total, this.startedAt(s.scope).usdTotal) + 1e-12) over.push(`usd total ${s.used.usdTotal} > ${s.caps.max_usd_total}`);
      if (over.length) throw new Error(`${where}: ${s.scope} (all runs): ${over.join('; ')}`);
    }
    for (const [provider, caps] of Object.entries(budget.per_provider)) check(this.total((e) => !e.exempt && e.provider === provider), caps, `${provider}.`);
  }
}

// ---- one harness for both workflows ----------------------------------------------------------

interface Stepped {
  state: { status: RunStatus; haltReason: string | null; usage: UsageSnapshot };
  decisions: { reason: string; from?: string; to?: string }[];
  commands: { kind: string }[];
  events: NewRunEvent[];
}

/** `solo`: the build with pipeline: solo (issue 25), the same definition with one role. */
type WorkflowUnderTest = 'build' | 'solo' | 'panel' | 'experiment';

interface Adapter<S extends Stepped['state'], E> {
  name: WorkflowUnderTest;
  closingRole: string;
  step(state: S, event: E): Stepped & { state: S };
  finishedEvent(call: Finished): E;
  cancel(): E;
  /** A resume at the stage the halting decision left, as the orchestrator sends it without --from. */
  resume(at: string, caps: Record<string, number>): E;
  /** The label of the run's closing record (a fact-only close has no call of its own), or null. */
  closingLabel(state: S): string | null;
  /** A valid reply for `call` in the current state. */
  validReply(state: S, call: AnyCall, r: Rand): unknown;
  /** The event an operation command (workspace, tests) comes back as, or null for none. */
  opEvent(state: S, op: Command, r: Rand): E | null;
  /** The closing artifacts recorded: with a call id (a model's) or without (fact-only). */
  closes(state: S): { model: number; factOnly: number };
}

const FAILURES = ['SERVER_ERROR', 'TIMEOUT', 'RATE_LIMITED', 'NETWORK', 'PROVIDER_ERROR'];
/** The engine's default backoff (the steps are given none): three retries. */
const DELAYS = [3000, 9000, 27000];

const familyOf = (label: string): [string, number] | null => {
  const m = /^([A-Z]+)(\d+)/.exec(label);
  return m ? [m[1], Number(m[2])] : null;
};

/**
 * Every label's family and number (`I1f1` → I 1, `R1r` → R 1, `RV3` → RV 3), as calls take them and
 * closing records: a number past the family's next is a gap. A fact-only close (a record no call
 * wrote) takes a new label only when the family's last call has its record: else it stands in for
 * that call, and a new label would leave the call's number skipped by the calls that follow.
 */
class LabelLedger {
  private readonly highest = new Map<string, number>();
  private readonly called = new Set<string>();
  private readonly recorded = new Set<string>();

  private take(label: string, where: string): [string, number, number] | null {
    const f = familyOf(label);
    if (!f) return null;
    const top = this.highest.get(f[0]) ?? 0;
    if (f[1] > top + 1) throw new Error(`${where}: label ${label} skips ${f[0]}${top + 1} (labels stay gap-free)`);
    this.highest.set(f[0], Math.max(top, f[1]));
    return [f[0], f[1], top];
  }

  call(label: string, where: string): void {
    if (this.take(label, where)) this.called.add(label);
  }

  record(label: string, factOnly: boolean, where: string): void {
    const taken = this.take(label, where);
    if (!taken) return;
    const [family, n, top] = taken;
    const last = `${family}${top}`;
    if (factOnly && n > top && this.called.has(last) && !this.recorded.has(last)) {
      throw new Error(`${where}: the fact-only close took ${label} while ${last}, the call it stands in for, left no record (labels stay gap-free)`);
    }
    this.recorded.add(label);
  }
}

function run<S extends Stepped['state'], E>(a: Adapter<S, E>, initial: S, budget: BudgetConfig, r: Rand, first: E, scopes: Scope[] = []): { state: S; closingAfterHalt: number } {
  const ledger = new Ledger(scopes);
  let state = initial;
  const inFlight: AnyCall[] = [];
  const ops: Command[] = [];
  const delivered: Finished[] = [];
  let closingAfterHalt = 0;
  let caps = budget;
  const labels = new LabelLedger();
  let haltedFrom: string | null = null;
  let resumed = false;
  /** At most one closing call per halt: the count of the halt before the resume. */
  let closingBeforeResume = 0;
  /** The failed tries the engine may retry (retryable, retries left), by id; and the retries seen. */
  const retryable = new Map<string, Finished>();

  const apply = (event: E, where: string, expectInert = false): void => {
    const input = deepFreeze({ ...state, usage: ledger.snapshot() });
    const out = a.step(input, event);
    if (expectInert && (out.events.length > 0 || out.commands.length > 0)) throw new Error(`${where}: a duplicate or late delivery changed the run (${out.events.map((e) => e.type).join(', ')})`);
    const closing = out.decisions.some((d) => d.reason.startsWith('partial synthesis after the halt'));
    const resuming = out.events.some((e) => e.type === 'run_resumed');
    for (const d of out.decisions) if (d.to === 'HALTED' && d.from !== 'HALTED') haltedFrom = d.from ?? null;
    for (const e of out.events) if (e.type === 'agent_call_queued') labels.call((e.payload as { label: string }).label, where);
    for (const e of out.events) {
      if (e.type !== 'run_halted') continue;
      const reason = (e.payload as { reason: string }).reason;
      if (!/max_calls_per_day|max_usd_per_day|max_usd_total/.test(reason)) continue;
      // A refusal by a scope names it by its policy path, and says whose runs it counts.
      const named = scopes.find((sc) => reason.startsWith(`${sc.scope}.`));
      if (!named || !reason.endsWith(`(${named.label}, all runs)`)) throw new Error(`${where}: a scope's refusal that does not name its scope: ${reason}`);
      reached[a.name].add('halted by a scope cap');
    }
    const closed = a.closingLabel(out.state);
    if (closed && closed !== a.closingLabel(input)) labels.record(closed, a.closes(out.state).factOnly === 1, where);
    for (const c of out.commands) {
      if (c.kind !== 'agent_call') {
        ops.push(c as Command);
        continue;
      }
      const call = c as AnyCall;
      const exempt = closing && call.role === a.closingRole;
      // The calls that fit before a halt are in flight and land; after it only the closing role is asked.
      if (input.haltReason !== null && !resuming && call.role !== a.closingRole) throw new Error(`${where}: ${call.role} called after the halt`);
      if (exempt) closingAfterHalt += 1;
      if (call.retryOf !== undefined) {
        // A retry: of a try the engine was told is retryable, with retries left; delayed by its backoff; never exempt.
        const of = retryable.get(call.retryOf);
        if (!of) throw new Error(`${where}: ${call.callId} retries ${call.retryOf}, which was not a retryable failure with retries left`);
        retryable.delete(call.retryOf);
        const n = (of.retry ?? 0) + 1;
        if (call.retry !== n || call.delayMs !== DELAYS[n - 1] || exempt) throw new Error(`${where}: retry ${call.retry} of ${of.id} (delay ${call.delayMs}, exempt ${exempt})`);
        if (call.messages !== of.messages && JSON.stringify(call.messages) !== JSON.stringify(of.messages)) throw new Error(`${where}: a retry asks another question`);
        reached[a.name].add('retried');
      }
      ledger.queue(call, exempt);
      inFlight.push(call);
    }
    state = out.state;
    ledger.assertWithin(caps, where);
  };

  apply(first, 'start');
  for (let n = 0; n < 400; n += 1) {
    const terminal = TERMINAL_RUN_STATUSES.includes(state.status);
    // A halted run is resumed once with room, where its halt left it: its labels go on from where they stopped.
    if (terminal && inFlight.length === 0 && state.status === 'halted' && !resumed && haltedFrom !== null) {
      resumed = true;
      closingBeforeResume = closingAfterHalt;
      closingAfterHalt = 0;
      reached[a.name].add('resumed');
      const raised = { max_calls: caps.max_calls + 40, max_tokens: caps.max_tokens + 200000, ...(caps.max_cost_usd !== undefined ? { max_cost_usd: caps.max_cost_usd + 1 } : {}) };
      caps = { ...caps, ...raised };
      apply(a.resume(haltedFrom, raised), `step ${n} (resume at ${haltedFrom})`);
      continue;
    }
    if (terminal && inFlight.length === 0) break;
    const where = `step ${n}`;
    if (r.chance(0.3)) ledger.racingRunTakesACall(r);
    if (!terminal && r.chance(0.01)) {
      apply(a.cancel(), `${where} (cancel)`);
      continue;
    }
    // Duplicates come now and then, and more often while the run waits on an operation (a file read, the tests).
    if (delivered.length > 0 && r.chance(inFlight.length === 0 ? 0.3 : 0.1)) {
      // The latest delivery half the time: the one a redelivery most often repeats.
      const dup = r.chance(0.5) ? delivered[delivered.length - 1] : r.pick(delivered);
      apply(a.finishedEvent(dup), `${where} (duplicate)`, true);
      continue;
    }
    if (inFlight.length === 0) {
      const op = ops.shift();
      if (!op) throw new Error(`${where}: a ${state.status} run waits for nothing`);
      const event = a.opEvent(state, op, r);
      if (event) apply(event, `${where} (${op.kind})`);
      continue;
    }
    const call = inFlight.splice(r.int(0, inFlight.length - 1), 1)[0];
    const base: Finished = {
      id: call.callId, role: call.role, stage: call.stage, label: call.label, attempt: call.attempt, provider: call.provider, model: call.model,
      status: 'completed', valid: true, parsed: null, responseText: null, error: null, errorCode: null, schemaName: call.schemaName, messages: call.messages,
    };
    const kind = r.pick(['valid', 'valid', 'valid', 'valid', 'invalid', 'transient', 'transient', 'usage_limit', 'interrupted'] as const);
    let finished: Finished;
    if (kind === 'valid') {
      const parsed = a.validReply(state, call, r);
      finished = { ...base, parsed, responseText: JSON.stringify(parsed), usage: ledger.settle(call, r, true) };
    } else if (kind === 'invalid') {
      finished = { ...base, valid: false, parsed: { nope: true }, responseText: '{"nope":true}', error: 'nope: not in the schema', errorCode: 'SCHEMA_INVALID', usage: ledger.settle(call, r, true) };
    } else {
      // Interrupted: a redelivery found the try running and recorded it failed (retryable); the engine retries it.
      const code = kind === 'usage_limit' ? 'USAGE_LIMIT' : kind === 'interrupted' ? 'INTERRUPTED' : r.pick(FAILURES);
      const canRetry = kind === 'interrupted' || (kind === 'transient' && (code !== 'PROVIDER_ERROR' || r.chance(0.5)));
      finished = { ...base, status: 'failed', valid: null, error: `${call.provider}: ${code}`, errorCode: code, retry: call.retry ?? 0, retryable: canRetry, usage: ledger.settle(call, r, false) };
    }
    // What the engine may retry: a retryable failure with retries left (before a halt any role; after it the closing role).
    if (finished.retryable && (finished.retry ?? 0) < DELAYS.length) retryable.set(finished.id, finished);
    delivered.push(finished);
    apply(a.finishedEvent(finished), `${where} (${kind} ${call.role} ${call.label})`, TERMINAL_RUN_STATUSES.includes(state.status));
  }
  if (!TERMINAL_RUN_STATUSES.includes(state.status)) throw new Error(`the run did not end: ${state.status}`);
  return { state, closingAfterHalt: Math.max(closingAfterHalt, closingBeforeResume) };
}

// ---- the two definitions under test ---------------------------------------------------------

const buildAdapter: Adapter<BuildRunState, BuildEvent> = {
  name: 'build',
  closingRole: 'synthesizer',
  step: (s, e) => decide(s, e, { templates: TEST_TEMPLATES, prices: PRICES }),
  finishedEvent: (call) => ({ type: 'agent_call_finished', call: call as FinishedCallOf<never, never> }),
  cancel: () => ({ type: 'cancel', reason: 'the property test cancels' }),
  resume: (at, raised) => ({ type: 'resume', at: at as BuildRunState['stage'], rerun: false, caps: raised }),
  closingLabel: (s) => s.synthesis?.label ?? null,
  validReply: (s, call, r) => {
    const proposal = s.proposals[s.proposals.length - 1]?.label ?? 'P1';
    const impl = s.implementations[s.implementations.length - 1]?.label ?? 'I1';
    const verdict = (): Verdict => r.pick(['ACCEPT', 'ACCEPT', 'REVISE', 'REJECT', 'NEEDS_EVIDENCE'] as const);
    if (call.schemaName.endsWith('OrFilesRequested') && r.chance(0.35)) return { paths: ['src/app.py'], reason: 'to see the code' };
    switch (call.role) {
      case 'proposer':
      case 'reviser':
        return proposalBody(call.label);
      case 'critic':
        return critiqueBody(proposal, verdict());
      case 'engineer':
        return implementationBody(proposal);
      case 'validator':
        return reviewBody(impl, r.pick(['ACCEPT', 'REVISE'] as const));
      default:
        return synthesisBody(r.pick(['ACCEPT', 'REVISE', 'REJECT'] as const));
    }
  },
  opEvent: (s, op, r) => {
    switch (op.kind) {
      case 'workspace.prepare':
        return r.chance(0.03) ? { type: 'workspace_failed', opId: op.opId, error: 'disk full' } : { type: 'workspace_prepared', opId: op.opId, path: '/ws', tree: ['src/app.py'] };
      case 'workspace.apply':
        return r.chance(0.05)
          ? { type: 'files_rejected', opId: op.opId, implementationLabel: op.implementationLabel, error: 'path escapes the workspace' }
          : { type: 'files_applied', opId: op.opId, implementationLabel: op.implementationLabel, tree: ['src/app.py', 'dd.py'] };
      case 'workspace.read':
        return { type: 'files_read', opId: op.opId, files: op.paths.map((path) => ({ path, content: 'x = 1\n', bytes: 6, truncated: false, error: null })) };
      case 'tests.run':
        return {
          type: 'tests_finished',
          opId: op.opId,
          testRun: { id: `${s.runId}-${op.testLabel}`, label: op.testLabel, implementationLabel: op.implementationLabel, result: testResult(r.chance(0.5) ? 0 : 1) },
        };
      default:
        return null;
    }
  },
  closes: (s) => (s.synthesis ? (s.synthesis.callId ? { model: 1, factOnly: 0 } : { model: 0, factOnly: 1 }) : { model: 0, factOnly: 0 }),
};

/** The build on the solo pipeline: whatever happens, no role but the engineer is ever asked. */
const soloAdapter: Adapter<BuildRunState, BuildEvent> = {
  ...buildAdapter,
  name: 'solo',
  step: (s, e) => {
    const out = buildAdapter.step(s, e);
    const other = out.commands.find((c): c is AnyCall => c.kind === 'agent_call' && (c as AnyCall).role !== 'engineer');
    if (other) throw new Error(`the solo pipeline asked the ${other.role}`);
    return out;
  },
};

const panelAdapter: Adapter<PanelRunState, PanelEvent> = {
  name: 'panel',
  closingRole: 'moderator',
  step: (s, e) => decidePanel(s, e, { templates: TEST_PANEL_TEMPLATES, prices: PRICES }),
  finishedEvent: (call) => ({ type: 'agent_call_finished', call: call as FinishedCallOf<never, never> }),
  cancel: () => ({ type: 'cancel', reason: 'the property test cancels' }),
  resume: (at, raised) => ({ type: 'resume', at: at as PanelRunState['stage'], rerun: false, caps: raised }),
  closingLabel: (s) => s.moderator?.label ?? null,
  validReply: (s, call) => {
    const judge = call.role as JudgeRole;
    switch (call.schemaName) {
      case 'JudgeVerdict':
        return verdictBody(judge);
      case 'DebateTurn':
        return turnBody(judge, s.debateRound);
      case 'Revote': {
        const previous = s.revoteBaseline?.[judge] ?? 5;
        return revoteBody(judge, Math.min(10, previous + 1), previous);
      }
      default:
        return moderatorBody();
    }
  },
  opEvent: () => null,
  closes: (s) => (s.moderator ? (s.moderator.callId ? { model: 1, factOnly: 0 } : { model: 0, factOnly: 1 }) : { model: 0, factOnly: 0 }),
};

const experimentAdapter: Adapter<ExperimentRunState, ExperimentEvent> = {
  name: 'experiment',
  closingRole: 'interpreter',
  step: (s, e) => decideExperimentRun(s, e, { templates: TEST_EXPERIMENT_TEMPLATES, prices: PRICES, methodTimeoutS: { default: 600, max: 3600 } }),
  finishedEvent: (call) => ({ type: 'agent_call_finished', call: call as FinishedCallOf<never, never> }),
  cancel: () => ({ type: 'cancel', reason: 'the property test cancels' }),
  resume: (at, raised) => ({ type: 'resume', at: at as ExperimentRunState['stage'], rerun: false, caps: raised }),
  closingLabel: (s) => s.interpretation?.label ?? null,
  validReply: (s, call, r) => {
    const metrics = s.result?.metrics ?? { sharpe_oos: 0, max_drawdown: 0, n_trades: 0 };
    if (call.role === 'critic') return r.chance(0.7) ? agreeing : disagreeing;
    return readingOf(metrics, r.pick(['PASS', 'KILL', 'INCONCLUSIVE'] as const));
  },
  opEvent: (s, command, r) => {
    // The harness keeps every workflow's operations as the build's Command: the experiment's is its method run.
    const op = command as unknown as { kind: string; opId: string };
    if (op.kind !== 'experiment.run') return null;
    if (r.chance(0.08)) return { type: 'method_ran', opId: op.opId, outcome: { ok: false, error: 'missing metrics: n_trades' } };
    const metrics = { sharpe_oos: r.int(-20, 30) / 10, max_drawdown: -r.int(0, 50) / 100, n_trades: r.int(0, 40) };
    const result = { prereg_hash: 'a'.repeat(64), commit: 'abc1234', metrics, exit_code: 0, duration_s: 1, output_artifact_id: `${s.runId}-out`, output_tail: '', run_id: s.runId };
    return { type: 'method_ran', opId: op.opId, outcome: { ok: true, result } };
  },
  // The interpreter's reading closes an experiment (decided by code either way); with none, the close is fact-only.
  closes: (s) => (s.interpretation ? { model: 1, factOnly: 0 } : TERMINAL_RUN_STATUSES.includes(s.status) && s.status !== 'cancelled' ? { model: 0, factOnly: 1 } : { model: 0, factOnly: 0 }),
};

// ---- the properties --------------------------------------------------------------------------

const SEEDS = Array.from({ length: 150 }, (_, i) => i + 1);

/** What the seeds reached, so that a generator gone tame fails the test instead of proving nothing. */
const reached: Record<WorkflowUnderTest, Set<string>> = { build: new Set(), solo: new Set(), panel: new Set(), experiment: new Set() };

function checkEnd(end: { state: Stepped['state']; closingAfterHalt: number }, closes: { model: number; factOnly: number }, workflow: WorkflowUnderTest): void {
  reached[workflow].add(end.state.status);
  if (closes.factOnly) reached[workflow].add('fact-only');
  if (end.state.status === 'halted' && closes.model) reached[workflow].add('closing call after a halt');
  expect(TERMINAL_RUN_STATUSES).toContain(end.state.status);
  expect(end.closingAfterHalt).toBeLessThanOrEqual(1);
  if (end.state.status === 'halted') expect(closes.model + closes.factOnly).toBe(1);
  if (end.state.status === 'done') expect(closes).toEqual({ model: 1, factOnly: 0 });
}

describe('the engine, property: budgets hold and every run closes once', () => {
  it.each(SEEDS)('build, seed %i', (seed) => {
    const r = new Rand(seed);
    const base = testConfig();
    const config = testConfig({ budget: randomBudget(r, Object.keys(base.providers)), autonomy: r.pick([1, 2, 2, 2] as const), ...(r.chance(0.5) ? { repo: '/repos/app' } : {}) });
    const agents = { ...config.agents, critic: { ...config.agents.critic, fallback: r.chance(0.5) ? 'anthropic' : undefined } };
    const cfg = { ...config, agents };
    const end = run(buildAdapter, initialBuildState(`b${seed}`, cfg), cfg.budget, r, { type: 'start' }, randomScopes(new Rand(seed * 7919)));
    checkEnd(end, buildAdapter.closes(end.state), 'build');
  });

  // The solo pipeline (issue 25) on the same definition: only the engineer is ever asked, and every run closes fact-only.
  it.each(SEEDS)('build, solo pipeline, seed %i', (seed) => {
    const r = new Rand(seed);
    const base = testConfig();
    const config = testConfig({ pipeline: 'solo', budget: randomBudget(r, Object.keys(base.providers)), ...(r.chance(0.5) ? { repo: '/repos/app' } : {}) });
    const agents = { ...config.agents, engineer: { ...config.agents.engineer, fallback: r.chance(0.5) ? 'anthropic' : undefined } };
    const cfg = { ...config, agents };
    const end = run(soloAdapter, initialBuildState(`s${seed}`, cfg), cfg.budget, r, { type: 'start' }, randomScopes(new Rand(seed * 7919)));
    const closes = soloAdapter.closes(end.state);
    reached.solo.add(end.state.status);
    if (closes.factOnly) reached.solo.add('fact-only');
    expect(TERMINAL_RUN_STATUSES).toContain(end.state.status);
    expect(end.closingAfterHalt).toBe(0);
    expect(closes.model).toBe(0);
    if (end.state.status === 'done' || end.state.status === 'halted') expect(closes.factOnly).toBe(1);
    expect(end.state.proposals).toEqual([]);
    expect(end.state.critiques).toEqual([]);
  });

  it.each(SEEDS)('panel, seed %i', (seed) => {
    const r = new Rand(seed);
    const base = testPanelConfig();
    const config = testPanelConfig({ budget: randomBudget(r, Object.keys(base.providers)), max_debate_rounds: r.int(0, 2), revote: r.chance(0.7) });
    const judges = { ...config.judges, pm: { ...config.judges.pm, fallback: r.chance(0.5) ? 'anthropic' : undefined } };
    const cfg = { ...config, judges };
    const end = run(panelAdapter, initialPanelState(`p${seed}`, cfg), cfg.budget, r, { type: 'start' }, randomScopes(new Rand(seed * 7919)));
    checkEnd(end, panelAdapter.closes(end.state), 'panel');
  });

  it.each(SEEDS)('experiment, seed %i', (seed) => {
    const r = new Rand(seed);
    const base = testExperimentConfig();
    const config = testExperimentConfig({ budget: randomBudget(r, Object.keys(base.providers)) });
    const cfg = { ...config, critic: { ...config.critic, fallback: r.chance(0.5) ? 'anthropic' : undefined } };
    const end = run(experimentAdapter, initialExperimentState(`e${seed}`, cfg), cfg.budget, r, { type: 'start' }, randomScopes(new Rand(seed * 7919)));
    checkEnd(end, experimentAdapter.closes(end.state), 'experiment');
  });

  it('the seeds reach every ending: done, halted with a closing call, fact-only, cancelled (and the build’s failed)', () => {
    const endings = ['cancelled', 'closing call after a halt', 'done', 'fact-only', 'halted', 'retried', 'resumed', 'halted by a scope cap'];
    expect([...reached.build]).toEqual(expect.arrayContaining([...endings, 'failed'])); // a workspace that could not be prepared
    expect([...reached.panel]).toEqual(expect.arrayContaining(endings));
    expect([...reached.solo]).toEqual(expect.arrayContaining(['cancelled', 'done', 'fact-only', 'halted', 'failed', 'resumed', 'retried', 'halted by a scope cap']));
    // An experiment whose method gave no metrics fails; one halted before them closes fact-only.
    expect([...reached.experiment]).toEqual(expect.arrayContaining(['cancelled', 'closing call after a halt', 'done', 'halted', 'retried', 'resumed', 'failed', 'halted by a scope cap']));
  });

  it('the generator is seeded: the same seed, the same run', () => {
    const a = new Rand(7);
    const b = new Rand(7);
    expect(Array.from({ length: 5 }, () => a.int(0, 1000))).toEqual(Array.from({ length: 5 }, () => b.int(0, 1000)));
    expect(JUDGES).toHaveLength(5);
  });
});
