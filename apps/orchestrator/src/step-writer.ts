import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { agentQueueName, jobId, NewRunEvent, QUEUE, RunEventEnvelope } from '@roundtable/contracts';
import {
  AgentCallEntity,
  BudgetReservationEntity,
  CritiqueEntity,
  DecisionEntity,
  ImplementationEntity,
  OpenQuestionEntity,
  ProposalEntity,
  RunEntity,
  SynthesisEntity,
  WorkspaceOpEntity,
} from '@roundtable/persistence';
import { addToOutbox, appendRunEvents, OutboxJob } from '@roundtable/events';
import type { BuildRunState, Command, DomainRecord, PanelAgentCallCommand, StepResult } from '@roundtable/workflow';

type Row<T> = QueryDeepPartialEntity<T>;
const row = <T>(v: unknown) => v as Row<T>;
const TERMINAL = new Set(['done', 'halted', 'needs_input', 'cancelled', 'failed']);

export interface WrittenStep {
  outboxIds: number[];
  events: RunEventEnvelope[];
  status: string;
}

const idOf = (runId: string, label: string | null | undefined) => (label ? `${runId}-${label}` : null);

/**
 * Writes everything one decide() returned, inside the step's transaction: the run's new
 * scalar state, domain rows, decisions, events, queued agent calls with their budget
 * reservations, workspace operations, and the outbox rows that will enqueue the jobs.
 * Inserts use deterministic ids with ON CONFLICT DO NOTHING, so a replayed step adds nothing.
 */
export async function writeStep(em: EntityManager, run: RunEntity, result: StepResult, extraEvents: NewRunEvent[] = []): Promise<WrittenStep> {
  const runId = run.id;
  const s = result.state;
  const becameRunning = run.status === 'queued' && s.status === 'running';
  const becameTerminal = !TERMINAL.has(run.status) && TERMINAL.has(s.status);
  const { call: callSeq, ...labelCounters } = s.counters;

  await em.update(
    RunEntity,
    { id: runId },
    row<RunEntity>({
      status: s.status,
      stage: s.stage,
      round: s.round,
      fixRound: s.fixRound,
      criteria: s.criteria,
      criteriaLocked: s.criteria !== null,
      unresolved: s.unresolved,
      haltReason: s.haltReason,
      config: s.config, // a resume may raise caps
      workspacePath: s.workspace.path,
      labelCounters,
      callSeq: callSeq ?? run.callSeq,
      ...(result.verdict ? { verdict: result.verdict, confidence: result.confidence } : {}),
      ...(becameRunning ? { startedAt: new Date() } : {}),
      ...(becameTerminal ? { finishedAt: new Date() } : {}),
    }),
  );

  for (const r of result.records) await writeRecord(em, runId, r);

  if (result.decisions.length) {
    await em.insert(
      DecisionEntity,
      result.decisions.map((d) => row<DecisionEntity>({ runId, fromStage: d.from, toStage: d.to, reason: d.reason, refs: d.refs })),
    );
  }

  const outbox: OutboxJob[] = [];
  let seq = run.callSeq;
  for (const c of result.commands) outbox.push(await writeCommand(em, s, c, () => ++seq));

  const events = await appendRunEvents(em, runId, [...result.events, ...extraEvents]);
  const outboxIds = await addToOutbox(em, outbox);
  return { outboxIds, events, status: s.status };
}

async function writeRecord(em: EntityManager, runId: string, r: DomainRecord): Promise<void> {
  const insert = async <T>(entity: new () => T, value: unknown) => {
    await em.createQueryBuilder().insert().into(entity).values(row<T>(value)).orIgnore().execute();
  };
  switch (r.kind) {
    case 'proposal':
      return insert(ProposalEntity, {
        id: r.record.id,
        runId,
        callId: r.record.callId,
        label: r.record.label,
        revisionOf: idOf(runId, r.record.revisionOf),
        round: r.record.round,
        status: r.record.status,
        body: r.record.body,
      });
    case 'proposal_status':
      await em.update(ProposalEntity, { id: idOf(runId, r.label)! }, { status: r.status });
      return;
    case 'critique':
      return insert(CritiqueEntity, {
        id: r.record.id,
        runId,
        callId: r.record.callId,
        label: r.record.label,
        targetKind: r.record.targetKind,
        targetId: idOf(runId, r.record.targetLabel),
        verdict: r.record.verdict,
        body: r.record.body,
      });
    case 'implementation':
      return insert(ImplementationEntity, {
        id: r.record.id,
        runId,
        callId: r.record.callId,
        label: r.record.label,
        proposalId: idOf(runId, r.record.proposalLabel),
        fixRound: r.record.fixRound,
        status: r.record.status,
        applyError: r.record.applyError,
        body: r.record.body,
        artifactIds: [],
      });
    case 'implementation_status':
      await em.update(ImplementationEntity, { id: idOf(runId, r.label)! }, { status: r.status, applyError: r.applyError });
      return;
    case 'synthesis':
      return insert(SynthesisEntity, {
        id: r.record.id,
        runId,
        callId: r.record.callId,
        label: r.record.label,
        verdict: r.record.body?.overall_verdict ?? null,
        partial: r.record.partial,
        body: r.record.body,
      });
    case 'open_question':
      await em.insert(OpenQuestionEntity, row<OpenQuestionEntity>({ runId, raisedByRole: r.role, question: r.question, status: 'open' }));
      return;
  }
}

/** Also writes the panel's agent calls: the same audit row, reservation and outbox job for any workflow. */
export async function writeCommand(em: EntityManager, s: Pick<BuildRunState, 'runId'>, c: Command | PanelAgentCallCommand, nextSeq: () => number): Promise<OutboxJob> {
  const runId = s.runId;
  switch (c.kind) {
    case 'agent_call': {
      const promptHash = createHash('sha256').update(JSON.stringify(c.messages)).digest('hex');
      await em
        .createQueryBuilder()
        .insert()
        .into(AgentCallEntity)
        .values(
          row<AgentCallEntity>({
            id: c.callId,
            runId,
            seq: nextSeq(),
            stage: c.stage,
            role: c.role,
            provider: c.provider,
            model: c.model,
            label: c.label,
            attempt: c.attempt,
            repairOf: c.repairOf,
            status: 'queued',
            promptHash,
            messages: c.messages,
            contextRefs: c.contextRefs,
            schemaName: c.schemaName,
            maxTokens: c.maxTokens,
            temperature: c.temperature,
            timeoutMs: c.timeoutMs,
          }),
        )
        .orIgnore()
        .execute();
      await em
        .createQueryBuilder()
        .insert()
        .into(BudgetReservationEntity)
        .values(row<BudgetReservationEntity>({ callId: c.callId, runId, provider: c.provider, calls: 1, tokens: c.estimatedTokens, costUsd: null }))
        .orIgnore()
        .execute();
      return {
        runId,
        queue: agentQueueName(c.provider),
        jobName: 'agent.call',
        jobId: jobId(c.callId, 'call'),
        payload: { runId, callId: c.callId },
      };
    }
    case 'workspace.prepare':
    case 'workspace.apply':
    case 'tests.run': {
      const kind = c.kind === 'workspace.prepare' ? 'prepare' : c.kind === 'workspace.apply' ? 'apply' : 'tests';
      const implementationId = c.kind === 'workspace.prepare' ? null : idOf(runId, c.implementationLabel);
      const result = c.kind === 'tests.run' ? { command: c.command, timeoutS: c.timeoutS, testLabel: c.testLabel } : null;
      await em
        .createQueryBuilder()
        .insert()
        .into(WorkspaceOpEntity)
        .values(row<WorkspaceOpEntity>({ id: c.opId, runId, kind, status: 'queued', implementationId, result }))
        .orIgnore()
        .execute();
      const payload = implementationId ? { runId, opId: c.opId, implementationId } : { runId, opId: c.opId };
      return {
        runId,
        queue: c.kind === 'tests.run' ? QUEUE.tests : QUEUE.workspace,
        jobName: c.kind,
        jobId: jobId(c.opId, kind),
        payload,
      };
    }
  }
}
