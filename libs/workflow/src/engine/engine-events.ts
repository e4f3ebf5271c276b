import type { AnswerEvent } from './answers';
import type { ApprovalEvent } from './gates';

/**
 * The events every workflow takes, because the engine owns them: a run starts, a call
 * finishes, a person cancels, resumes, approves or answers it, the reconciler halts it. A workflow's own events
 * (the build's workspace and test reports, the panel's appeal) are added beside these.
 */
export type EngineEvent<C, G extends string> =
  | { type: 'start' }
  | { type: 'agent_call_finished'; call: C }
  | { type: 'cancel'; reason?: string }
  /**
   * Restart a stopped run. `at` is the stage to restart in: the one the halting decision left,
   * or the one the user named (`rerun`: then recorded work for that stage is done again instead
   * of reused). `caps` raise budget caps for the rest of the run.
   */
  | { type: 'resume'; at: G; rerun: boolean; caps?: Partial<Record<string, number>> }
  /**
   * The reconciler found the run running with nothing in flight and no step for a while: it
   * halts like any halt, through the workflow's own closing (the closing call, or the fact-only
   * close), so the run row and its events have one writer, the step.
   */
  | { type: 'halt'; reason: string }
  /** A person's decision at the gate the run waits at (engine/gates.ts); a workflow without gates ignores it. */
  | ApprovalEvent
  /** A person's answer to an open question (engine/answers.ts). */
  | AnswerEvent;
