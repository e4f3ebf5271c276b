import { questionId } from '@roundtable/workflow';
import type { BudgetConfig, ProjectConfig } from '@roundtable/contracts';
import type { AgentCallEntity, RunEntity } from '@roundtable/persistence';
import type { CallDetail, CallSummary, RunDetail, RunSummary } from '@roundtable/contracts';
import type { ProviderUsage, RunUsage } from './run-usage';
import { callReplySchema } from './call-reply-schema';

/**
 * The JSON shapes the API answers with: snake_case, dates as ISO strings, absent values as null.
 * Typed by the reply schemas that /docs/openapi.json is generated from, so the two cannot drift.
 */

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const projectOf = (run: RunEntity): string => String((run.config as Partial<ProjectConfig>).project ?? '');

export function runSummaryView(run: RunEntity): RunSummary {
  return {
    id: run.id,
    project: projectOf(run),
    workflow: run.workflow,
    status: run.status,
    stage: run.stage,
    verdict: run.verdict,
    created_at: iso(run.createdAt),
    finished_at: iso(run.finishedAt),
  };
}

function capsOf(run: RunEntity) {
  const b = ((run.config as Partial<ProjectConfig>).budget ?? {}) as Partial<BudgetConfig>;
  return {
    max_calls: b.max_calls ?? null,
    max_tokens: b.max_tokens ?? null,
    max_cost_usd: b.max_cost_usd ?? null,
    max_seconds: b.max_seconds ?? null,
    max_rounds: b.max_rounds ?? null,
    max_fix_rounds: b.max_fix_rounds ?? null,
    per_provider: b.per_provider ?? {},
  };
}

/** One open_questions row as GET /v1/runs/:id lists it (its id: Q<place in the run's list>). */
export interface QuestionRow {
  raised_by_role: string;
  question: string;
  status: string;
  answer: string | null;
  answered_by: string | null;
}

/** A run forked from another, as the original's page lists it. */
export interface ForkRow {
  id: string;
  stage: string;
  status: string;
}

export function runDetailView(
  run: RunEntity,
  usage: RunUsage,
  byProvider: Record<string, ProviderUsage>,
  questions: readonly QuestionRow[] = [],
  forks: readonly ForkRow[] = [],
  inputs: { objective: string; requirements: string[] } | null = null,
): RunDetail {
  const gate = run.status === 'awaiting_approval' && run.gate ? (run.gate as { name: string; subject?: Record<string, unknown> }) : null;
  return {
    id: run.id,
    project: projectOf(run),
    workflow: run.workflow,
    status: run.status,
    stage: run.stage,
    round: run.round,
    fix_round: run.fixRound,
    verdict: run.verdict,
    confidence: run.confidence,
    halt_reason: run.haltReason,
    criteria: run.criteria,
    created_at: iso(run.createdAt),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    usage,
    caps: capsOf(run),
    usage_by_provider: byProvider,
    gate: gate ? { name: gate.name, subject: gate.subject ?? {}, waiting_since: iso(run.gateOpenedAt) } : null,
    open_questions: questions.map((q, i) => ({
      id: questionId(i),
      role: q.raised_by_role,
      question: q.question,
      status: q.status === 'answered' ? ('answered' as const) : ('open' as const),
      answer: q.answer,
      answered_by: q.answered_by,
    })),
    forked_from: run.forkedFrom ? { run_id: run.forkedFrom.run_id, stage: run.forkedFrom.stage, copied_calls: Object.keys(run.forkedFrom.calls).length } : null,
    forks: forks.map((f) => ({ id: f.id, stage: f.stage, status: f.status })),
    handed_off_from: run.handedOffFrom ?? null,
    inputs,
  };
}

export function callSummaryView(c: AgentCallEntity): CallSummary {
  return {
    id: c.id,
    seq: c.seq,
    stage: c.stage,
    role: c.role,
    provider: c.provider,
    model: c.model,
    label: c.label,
    attempt: c.attempt,
    retry: c.retry,
    retry_of: c.retryOf,
    status: c.status,
    valid: c.valid,
    error: c.error,
    error_code: c.errorCode,
    input_tokens: c.inputTokens,
    output_tokens: c.outputTokens,
    cost_usd: c.costUsd,
    cost_source: c.costSource,
    latency_ms: c.latencyMs,
    created_at: iso(c.createdAt),
    started_at: iso(c.startedAt),
    finished_at: iso(c.finishedAt),
    copied_from: c.copiedFrom ?? null,
  };
}

/** Everything recorded about one LLM request: the exact prompt, the reply, and its accounting. */
export function callDetailView(c: AgentCallEntity): CallDetail {
  return {
    ...callSummaryView(c),
    run_id: c.runId,
    repair_of: c.repairOf,
    schema_name: c.schemaName,
    schema: callReplySchema(c.schemaName),
    prompt_hash: c.promptHash,
    messages: c.messages,
    context_refs: c.contextRefs,
    max_tokens: c.maxTokens,
    temperature: c.temperature,
    timeout_ms: c.timeoutMs,
    response_text: c.responseText,
    parsed: c.parsed,
    cached_input_tokens: c.cachedInputTokens,
    request_id: c.requestId,
    billing: c.billing,
    argv: c.argv,
  };
}
