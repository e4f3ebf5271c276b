import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { callsPastCapNote, type DebateTurn, elapsedSeconds, emptyRunView, foldRunEvent, hasEnded, pendingCalls, type RunView } from '@roundtable/run-view';
import { fmtConfidence, fmtInt, fmtSeconds, fmtShort, fmtUsd, fmtWholeSeconds } from './format';
import { paintVerdict, Style } from './terminal';
import { findCliWorkflow, workflowLines } from './workflows';

/** The caps of GET /v1/runs/:id (null: no cap). */
export interface RunCaps {
  max_calls?: number | null;
  max_tokens?: number | null;
  max_cost_usd?: number | null;
  max_seconds?: number | null;
  max_rounds?: number | null;
  max_fix_rounds?: number | null;
}

/** The usage of GET /v1/runs/:id: preferred for the closing line, being the API's own count. */
export interface RunUsageView {
  calls: number;
  tokens: number;
  cost_usd: number | null;
  seconds: number | null;
}

type Payload<T extends RunEventType> = RunEventPayload<T>;

/** The seed §9 call line: `[PROPOSE] proposer anthropic/claude 1.9s in=812 out=441 $0.01`. */
export function formatCallLine(p: Payload<'agent_call_completed'>, style: Style): string {
  const parts = [style.cyan(`[${p.stage}]`), p.role, `${p.provider}/${p.model}`];
  if (typeof p.latency_ms === 'number') parts.push(fmtSeconds(p.latency_ms));
  parts.push(`in=${p.input_tokens ?? '?'}`, `out=${p.output_tokens ?? '?'}`);
  parts.push(typeof p.cost_usd === 'number' ? fmtUsd(p.cost_usd) : 'cost=n/a');
  if (p.attempt > 1) parts.push(`attempt=${p.attempt}`);
  if (!p.valid) parts.push(style.red('INVALID'));
  return parts.join(' ');
}

export function formatFailedCallLine(p: Payload<'agent_call_failed'>, style: Style): string {
  const parts = [style.cyan(`[${p.stage}]`), p.role, `${p.provider}/${p.model}`, style.red(`FAILED${p.error_code ? ` (${p.error_code})` : ''}`)];
  if (p.attempt > 1) parts.push(`attempt=${p.attempt}`);
  return parts.join(' ');
}

/** ` (the closing call, allowed past the cap)` after a calls count above its cap, else nothing. */
const pastCap = (calls: number, cap: number | null | undefined): string => {
  const note = callsPastCapNote(calls, cap);
  return note ? ` (${note})` : '';
};

/** One line of text, never a paragraph: gists and reasons may carry newlines. */
const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

/** How much of a streaming debate turn the progress line shows: its last words, which fit a terminal. */
const SPEAKING_TAIL = 60;

/** The debate turn whose tokens are arriving (the transcript's last entry while it streams). */
function streamingTurn(view: RunView): DebateTurn | null {
  const last = view.panel?.debate[view.panel.debate.length - 1];
  return last?.streaming ? last : null;
}

const TERMINAL_TAG: Record<string, string> = { done: 'DONE', halted: 'HALTED', needs_input: 'NEEDS_INPUT', failed: 'FAILED', cancelled: 'CANCELLED' };

/**
 * Turns a run's events into the human lines of `run --follow`: one line per agent call plus its
 * gist, stage changes, test results, halts, warnings, and a closing summary. What it knows of the
 * run is libs/run-view's RunView, folded from the same envelopes the web workbench folds (so the
 * terminal and the browser cannot disagree): the progress line's usage, the calls in flight, the
 * stage and the final status all come from it, and its sequence gate drops a replayed envelope.
 */
export class RunRenderer {
  caps: RunCaps | null;
  /** Set from the API just before the terminal event is rendered, when it could be fetched. */
  finalUsage: RunUsageView | null = null;
  private view: RunView = emptyRunView();
  private readonly autonomy: number | null;

  constructor(
    private readonly style: Style,
    opts: { caps?: RunCaps | null; autonomy?: number | null } = {},
  ) {
    this.caps = opts.caps ?? null;
    this.autonomy = opts.autonomy ?? null;
  }

  /** The run's final status once it has ended (done, halted, failed …); null while it runs. */
  get status(): string | null {
    return hasEnded(this.view) ? this.view.status : null;
  }

  get verdict(): string | null {
    return this.view.verdict;
  }

  get stage(): string | null {
    return this.view.stage;
  }

  render(ev: RunEventEnvelope): string[] {
    const before = this.view;
    this.view = foldRunEvent(before, ev);
    // The sequence gate: a duplicate or out-of-order envelope was already shown.
    if (this.view === before) return [];
    const s = this.style;
    const view = this.view;
    switch (ev.type) {
      case 'run_created': {
        const p = ev.payload as Payload<'run_created'>;
        const bits = [s.bold(`[run ${ev.run_id}]`), `project=${p.project}`];
        if (p.workflow && (findCliWorkflow(p.workflow)?.namedInHeader ?? true)) bits.push(`workflow=${p.workflow}`);
        if (this.autonomy !== null) bits.push(`autonomy=${this.autonomy}`);
        const budget = this.budgetHeader();
        if (budget) bits.push(`budget: ${budget}`);
        return [bits.join(' ')];
      }
      case 'run_started': {
        const p = ev.payload as Payload<'run_started'>;
        if (findCliWorkflow(view.workflow)?.workspaceLine === false) return [];
        return [`${s.cyan('[INIT]')} ${p.workspace ? `workspace from ${p.workspace}` : 'empty workspace (greenfield)'}`];
      }
      case 'stage_changed': {
        const p = ev.payload as Payload<'stage_changed'>;
        // HALTED has its own line (run_halted) and DONE the closing summary.
        if (p.to === 'HALTED' || p.to === 'DONE') return [];
        const reason = oneLine(p.reason ?? '');
        return [s.bold(`-> ${p.to}`) + (reason ? s.dim(`: ${reason}`) : '')];
      }
      case 'agent_call_queued':
      case 'tests_started':
        return [];
      case 'agent_call_completed': {
        const p = ev.payload as Payload<'agent_call_completed'>;
        const lines = [formatCallLine(p, s)];
        if (p.gist) lines.push(`  ${p.valid ? s.dim(oneLine(p.gist)) : s.red(oneLine(p.gist))}`);
        return lines;
      }
      case 'agent_call_failed': {
        const p = ev.payload as Payload<'agent_call_failed'>;
        return [formatFailedCallLine(p, s), `  ${s.red(oneLine(p.error))}`];
      }
      case 'tests_completed': {
        const p = ev.payload as Payload<'tests_completed'>;
        const command = view.build.tests.find((t) => t.result === ev.payload)?.command;
        const exit = `exit=${p.exit_code}`;
        const bits = [s.cyan('[TEST]'), p.label];
        if (command) bits.push(command);
        bits.push(p.exit_code === 0 ? s.green(exit) : s.red(exit), `passed=${p.passed}`, `failed=${p.failed}`);
        if (p.errors) bits.push(`errors=${p.errors}`);
        if (p.timed_out) bits.push(s.red('timed out'));
        return [bits.join(' ')];
      }
      case 'files_rejected': {
        const p = ev.payload as Payload<'files_rejected'>;
        return [`${s.cyan(`[${view.stage ?? 'IMPLEMENT'}]`)} ${p.label} ${s.red('files rejected')}: ${oneLine(p.error)}`];
      }
      case 'files_requested': {
        const p = ev.payload as Payload<'files_requested'>;
        return [`${s.cyan(`[${view.stage ?? 'READ'}]`)} ${p.label} ${p.role} asks to read ${p.paths.join(', ')} (request ${p.round})`];
      }
      case 'files_read': {
        const p = ev.payload as Payload<'files_read'>;
        const missing = p.files.filter((f) => f.error !== null).length;
        return [`${s.cyan(`[${view.stage ?? 'READ'}]`)} ${p.label} read ${p.files.length - missing} file(s)${missing ? `, ${missing} not readable` : ''}`];
      }
      case 'engineer_tools_ran': {
        const p = ev.payload as Payload<'engineer_tools_ran'>;
        const tools = p.tools.map((t) => `${t.name}${t.target ? ` ${t.target}` : ''}${t.is_error ? ` ${s.red('(refused)')}` : ''}`);
        return [`${s.cyan(`[${view.stage ?? 'IMPLEMENT'}]`)} ${p.label} turn ${p.turn}: ${tools.length ? tools.join(', ') : 'no tool called'}`];
      }
      case 'budget_warning': {
        const p = ev.payload as Payload<'budget_warning'>;
        const pct = p.limit > 0 ? ` (${Math.round((p.used / p.limit) * 100)}%)` : '';
        return [s.yellow(`! budget: ${p.cap} at ${+p.used.toFixed(4)} of ${p.limit}${pct}`)];
      }
      case 'provider_fallback': {
        const p = ev.payload as Payload<'provider_fallback'>;
        return [s.yellow(`! fallback: ${p.role} ${p.from} -> ${p.to}: ${oneLine(p.reason)}`)];
      }
      case 'open_question_raised': {
        const p = ev.payload as Payload<'open_question_raised'>;
        return [s.yellow(`? open question from ${p.role}: ${oneLine(p.question)}`)];
      }
      case 'run_halted': {
        const p = ev.payload as Payload<'run_halted'>;
        return [`${s.yellow('[HALTED]')} ${oneLine(p.reason)}`];
      }
      case 'run_completed':
      case 'run_failed':
      case 'run_cancelled':
        return this.closingLines(ev);
      default:
        // Records (proposal_recorded …) repeat what the call's gist said; unknown types are for newer clients.
        return workflowLines(ev, s) ?? [];
    }
  }

  /**
   * The closing lines of a terminal event already rendered, with the usage as the renderer holds it now:
   * `finalUsage` when set (the API's figures, right at the end of the log), else the events' tally up to
   * the view's last event (right at a halt that a resume follows, or at the end before an appeal).
   */
  closingLines(ev: RunEventEnvelope): string[] {
    switch (ev.type) {
      case 'run_completed': {
        const p = ev.payload as Payload<'run_completed'>;
        const verdict = p.verdict ? `${paintVerdict(this.style, p.verdict)} (confidence ${fmtConfidence(p.confidence)})` : 'none (fact-only report)';
        return [`${this.terminalTag(p.status)} ${this.usageSummary()}. verdict: ${verdict}`];
      }
      case 'run_failed': {
        const p = ev.payload as Payload<'run_failed'>;
        return [`${this.terminalTag('failed')} ${oneLine(p.reason)}`, `${this.usageSummary()}.`];
      }
      case 'run_cancelled': {
        const p = ev.payload as Payload<'run_cancelled'>;
        return [`${this.terminalTag('cancelled')} ${p.reason ? `${oneLine(p.reason)}. ` : ''}${this.usageSummary()}.`];
      }
      default:
        return [];
    }
  }

  /**
   * The caps in force at the view's point of the log (run_created's, raised by each resume or appeal:
   * libs/run-view), over the caps it was given (the API's now), which stand alone for a log older than them.
   */
  get capsNow(): RunCaps | null {
    const folded = this.view.caps;
    return folded ? { ...(this.caps ?? {}), ...folded } : this.caps;
  }

  /** `budget: calls 3/16, tokens 4,210/200,000, cost $0.03/$5.00, time 12s/900s` (+ what is in flight). */
  progress(opts: { inFlight?: boolean } = {}): string {
    const c = this.capsNow ?? {};
    const of = (used: string, cap: string | null) => (cap === null ? used : `${used}/${cap}`);
    const { usage } = this.view;
    const parts = [
      `calls ${of(String(usage.calls), c.max_calls != null ? String(c.max_calls) : null)}${pastCap(usage.calls, c.max_calls)}`,
      `tokens ${of(fmtInt(usage.tokens), c.max_tokens != null ? fmtInt(c.max_tokens) : null)}`,
      // Unpriced calls (replay, local models) have no cost to put over the cap.
      usage.costUsd === null
        ? `cost n/a${c.max_cost_usd != null ? ` (cap ${fmtUsd(c.max_cost_usd)})` : ''}`
        : `cost ${of(fmtUsd(usage.costUsd), c.max_cost_usd != null ? fmtUsd(c.max_cost_usd) : null)}`,
    ];
    const secs = elapsedSeconds(this.view);
    if (secs !== null) parts.push(`time ${of(fmtWholeSeconds(secs), c.max_seconds != null ? fmtWholeSeconds(c.max_seconds) : null)}`);
    // A debate turn streaming: the progress line shows it growing (its last words), until the whole turn is published.
    const speaking = opts.inFlight ? streamingTurn(this.view) : null;
    if (speaking) return this.style.dim(`  ${speaking.speaker} (round ${speaking.round}): …${oneLine(speaking.message).slice(-SPEAKING_TAIL)}`);
    let line = `  budget: ${parts.join(', ')}`;
    const waiting = pendingCalls(this.view);
    if (opts.inFlight && waiting.length) line += ` · waiting on ${waiting.map((c) => `${c.role} ${c.provider}/${c.model}`).join(', ')}`;
    return this.style.dim(line);
  }

  private terminalTag(status: string): string {
    const tag = `[${TERMINAL_TAG[status] ?? status.toUpperCase()}]`;
    if (status === 'done') return this.style.green(tag);
    if (status === 'failed') return this.style.red(tag);
    return this.style.yellow(tag);
  }

  /** `8 calls, 20,461 tokens, $0.10, 49s`: the API's figures when known, else the events' tally. */
  private usageSummary(): string {
    const { usage } = this.view;
    const u = this.finalUsage ?? { calls: usage.calls, tokens: usage.tokens, cost_usd: usage.costUsd, seconds: elapsedSeconds(this.view) };
    const parts = [`${u.calls} call${u.calls === 1 ? '' : 's'}${pastCap(u.calls, this.capsNow?.max_calls)}`, `${fmtInt(u.tokens)} tokens`, u.cost_usd === null ? 'cost n/a' : fmtUsd(u.cost_usd)];
    if (u.seconds !== null) parts.push(fmtWholeSeconds(u.seconds));
    return parts.join(', ');
  }

  /** The seed's header budget: `12 calls / 200k tok / $5.00 / 900s`. */
  private budgetHeader(): string | null {
    const c = this.capsNow;
    if (!c) return null;
    const parts: string[] = [];
    if (c.max_calls != null) parts.push(`${c.max_calls} calls`);
    if (c.max_tokens != null) parts.push(`${fmtShort(c.max_tokens)} tok`);
    if (c.max_cost_usd != null) parts.push(fmtUsd(c.max_cost_usd));
    if (c.max_seconds != null) parts.push(`${c.max_seconds}s`);
    return parts.length ? parts.join(' / ') : null;
  }
}
