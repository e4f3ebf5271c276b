import { z } from 'zod';
import { JudgeRole, RunStage } from '../panel/panel-vocabulary.schema';
import { CallOutcome } from './call-outcome.schema';
import { JobTrace } from './job-trace.schema';

/**
 * The one catalogue of queues and jobs. Queue and job names are Redis keys (BullMQ stores
 * `<prefix>:<queue>:…`): renaming one strands the jobs already queued under the old name.
 * Payloads carry ids; the Postgres rows are the truth. Two exceptions, copies: agent.done may
 * carry the call's outcome as the provider-worker also writes it to the row (CallOutcome), and
 * agent.call a card for people reading the queue (AgentCallCard).
 */
export const QUEUE = {
  orchestrator: 'orchestrator',
  workspace: 'workspace',
  tests: 'tests',
} as const;

/** One queue per provider name, so each provider's workers scale alone. */
export function agentQueueName(provider: string): `agent.${string}` {
  return `agent.${provider}`;
}

/** Every job names its run, and may carry the trace context of the span that enqueued it (JobTrace). */
const RunRef = z.object({ runId: z.string().min(1), trace: JobTrace.optional() });

/**
 * What a person reading the queue needs to know about an agent call (Bull Board's job card:
 * "critic · C1 · CRITIQUE"), copied from the call's row when the job is sent. No handler reads
 * it: the row stays the truth, and a job resent from the rows (the reconciler) goes without it.
 */
export const AgentCallCard = z.object({ role: z.string().min(1), label: z.string(), stage: z.string().min(1) });

export const JOBS = {
  orchestrator: {
    'run.start': RunRef,
    /** `outcome`: sent by the try that called the provider; absent when a redelivery reports a row already settled. */
    'agent.done': RunRef.extend({ callId: z.string().min(1), outcome: CallOutcome.optional() }),
    'workspace.done': RunRef.extend({ opId: z.string().min(1) }),
    'tests.done': RunRef.extend({ opId: z.string().min(1) }),
    'run.resume': RunRef.extend({
      from: RunStage.optional(),
      caps: z.record(z.string(), z.number()).optional(),
    }),
    'run.cancel': RunRef,
    /**
     * The reconciler found the run running with nothing in flight and no step since `seenMs`
     * (its updated_at, in ms): the orchestrator halts it through its workflow's closing, unless a
     * step moved it since.
     */
    'run.halt': RunRef.extend({ reason: z.string().min(1), seenMs: z.number().int() }),
    /**
     * A person's decision at the gate the run waits at (`approver`: the api token's name).
     * `criteria`: the criteria as approved at the criteria gate, when the approver edited them
     * (an entry without an id is new; a locked id left out is dropped).
     */
    'run.approve': RunRef.extend({
      gate: z.string().min(1),
      decision: z.enum(['approve', 'reject']),
      note: z.string().nullable(),
      approver: z.string().min(1),
      criteria: z.array(z.object({ id: z.string().min(1).optional(), text: z.string().min(1) })).optional(),
    }),
    /** A person's answer to an open question (Q1 …) of the run. */
    'run.answer': RunRef.extend({
      questionId: z.string().min(1),
      answer: z.string().min(1),
      answeredBy: z.string().min(1),
      /** The answer is an experiment's decision (issue 24: a build's NEEDS_EXPERIMENT at autonomy 3), not a person's. */
      experimentId: z.string().min(1).optional(),
    }),
    /** A finished panel's one appeal: new evidence, re-scored by the named judges; caps raised first, if given. */
    'run.appeal': RunRef.extend({
      evidence: z.array(z.string().min(1)).min(1),
      judges: z.array(JudgeRole).min(1),
      caps: z.record(z.string(), z.number()).optional(),
    }),
  },
  agent: {
    'agent.call': RunRef.extend({ callId: z.string().min(1), card: AgentCallCard.optional() }),
    /** A call tried again in the playground (playground_calls row): asked and recorded outside the run. */
    'playground.call': RunRef.extend({ playgroundId: z.string().min(1) }),
  },
  workspace: {
    'workspace.prepare': RunRef.extend({ opId: z.string().min(1) }),
    'workspace.apply': RunRef.extend({ opId: z.string().min(1), implementationId: z.string().min(1) }),
    /** Read the files a role asked for (reading before writing); the op row holds the paths. */
    'workspace.read': RunRef.extend({ opId: z.string().min(1) }),
    /** Merge the run branch into the original repository; the op row holds the target and strategy. */
    'workspace.merge': RunRef.extend({ opId: z.string().min(1) }),
    /** Run the tools an agent-mode engineer's turn called; the op row holds the calls. */
    'workspace.tool': RunRef.extend({ opId: z.string().min(1) }),
    /** Export the run branch as a bundle and a patch (a run that cannot be merged), after the run ended. */
    'workspace.export': RunRef.extend({ opId: z.string().min(1) }),
  },
  tests: {
    'tests.run': RunRef.extend({ opId: z.string().min(1), implementationId: z.string().min(1) }),
    /** Run an experiment's preregistered command at its pinned commit (issue 24); the op row holds the request. Reported with tests.done. */
    'experiment.run': RunRef.extend({ opId: z.string().min(1) }),
    /**
     * Score an eval cell (issue 25) once its runs have ended: sent when one of them ends (`runId`),
     * so a vote's cell is asked once per sample and scored by the ask that finds them all ended.
     */
    'eval.score': RunRef.extend({ cellId: z.string().min(1) }),
  },
} as const;

/**
 * Jobs a person asks for through the api, any number of times: each request is its own job
 * (numbered by the run's `requests` count) and counted on the run when a step applies it.
 */
export const REQUEST_JOB_NAMES = ['run.resume', 'run.appeal', 'run.approve', 'run.answer'] as const;
export type RequestJobName = (typeof REQUEST_JOB_NAMES)[number];
export const isRequestJob = (name: string): name is RequestJobName => (REQUEST_JOB_NAMES as readonly string[]).includes(name);

type Catalogue = typeof JOBS;
export type QueueKind = keyof Catalogue;
export type JobName = { [Q in QueueKind]: keyof Catalogue[Q] & string }[QueueKind];
type SchemaOf<N extends JobName> = {
  [Q in QueueKind]: N extends keyof Catalogue[Q] ? Catalogue[Q][N] : never;
}[QueueKind];
/** `JobOf<'agent.done'>` is the payload type of that job, derived from its schema. */
export type JobOf<N extends JobName> = SchemaOf<N> extends z.ZodType ? z.infer<SchemaOf<N>> : never;

/** Which queue kind a job name belongs to. */
export function queueKindOf(name: JobName): QueueKind {
  for (const kind of Object.keys(JOBS) as QueueKind[]) {
    if (name in JOBS[kind]) return kind;
  }
  throw new Error(`job ${name} is not in the catalogue`);
}

export function jobSchema(name: JobName): z.ZodType {
  const kind = queueKindOf(name);
  return (JOBS[kind] as Record<string, z.ZodType>)[name];
}

export function jobNamesOf(kind: QueueKind): JobName[] {
  return Object.keys(JOBS[kind]) as JobName[];
}

/**
 * Deterministic job ids make a repeated enqueue a no-op. BullMQ forbids ':' in custom ids
 * and ids made only of digits, so ids are joined with '__' and always start with a letter.
 */
export function jobId(...parts: (string | number)[]): string {
  return ['j', ...parts].join('__').replace(/:/g, '_');
}
