import type { NewRunEvent, RunEventPayload, RunEventType } from '@roundtable/contracts';
import type { PriceLookup } from './call-types';
import type { EngineState } from './definition';

/** What every workflow's state has that one step's bookkeeping needs. */
export interface StepState<G extends string> {
  runId: string;
  stage: G;
  counters: Record<string, number>;
  config: unknown;
}

/**
 * One decide() step's output, accumulated over a private copy of the state (the input is never
 * touched): stage changes as Decisions each with its stage_changed event, label counters for
 * stable short ids, events, records and commands. Shared by the build and panel workflows so
 * the two record a step the same way.
 */
export abstract class StepAccumulator<S extends StepState<G>, G extends string, R, C, V extends string = string> {
  readonly decisions: { from: G; to: G; reason: string; refs: string[] }[] = [];
  readonly records: R[] = [];
  readonly commands: C[] = [];
  readonly events: NewRunEvent[] = [];

  /** `state` must already be the step's own copy of the input. */
  protected constructor(readonly state: S) {}

  get runId(): string {
    return this.state.runId;
  }

  get config(): S['config'] {
    return this.state.config;
  }

  get touched(): boolean {
    return this.decisions.length + this.records.length + this.commands.length + this.events.length > 0;
  }

  id(label: string): string {
    return `${this.runId}-${label}`;
  }

  peek(family: string): number {
    return (this.state.counters[family] ?? 0) + 1;
  }

  bump(family: string): number {
    const n = this.peek(family);
    this.state.counters[family] = n;
    return n;
  }

  /**
   * The label of a close no model wrote (the fact-only report): that of the family's last call
   * when nothing was recorded under it (the closing call that failed, or was still in flight at a
   * second halt: the report stands in for it), else the next one. So labels stay gap-free and a
   * resumed run's next closing call follows on (issue 22: a failed S1 closed as S2, the resume asked S3).
   */
  closingLabel(family: string, recordedLabel: string | null | undefined): string {
    const asked = this.state.counters[family] ?? 0;
    if (asked > 0 && recordedLabel !== `${family}${asked}`) return `${family}${asked}`;
    return `${family}${this.bump(family)}`;
  }

  emit<T extends RunEventType>(type: T, payload: RunEventPayload<T>): void {
    this.events.push({ type, payload } as NewRunEvent);
  }

  go(to: G, reason: string, refs: string[] = []): void {
    const from = this.state.stage;
    this.decisions.push({ from, to, reason, refs });
    this.emit('stage_changed', { from, to, reason } as RunEventPayload<'stage_changed'>);
    this.state.stage = to;
  }

  /** The run's verdict and confidence as this step leaves them (null until the final synthesis). */
  protected abstract outcome(): { verdict: V | null; confidence: number | null };

  result() {
    return {
      state: this.state,
      decisions: this.decisions,
      records: this.records,
      commands: this.commands,
      events: this.events,
      ...this.outcome(),
    };
  }
}

/**
 * The step the engine works on: a StepAccumulator whose commands include agent calls, with
 * the step's price lookup (absent: no call reserves USD).
 */
export abstract class EngineStep<
  S extends StepState<G> & EngineState<G>,
  G extends string,
  R,
  C extends { kind: string },
  V extends string = string,
> extends StepAccumulator<S, G, R, C, V> {
  protected constructor(
    state: S,
    readonly prices?: PriceLookup,
    readonly retryDelaysMs?: readonly number[],
  ) {
    super(state);
  }
}
