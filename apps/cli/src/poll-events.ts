import type { RunEventEnvelope } from '@roundtable/contracts';
import { ENDED_RUN_STATUSES } from '@roundtable/run-view';
import { ApiClient, seg } from './api-client';

/** What GET /v1/runs/:id answers (the fields the CLI reads). */
export interface RunDetail {
  id: string;
  project: string;
  workflow: string;
  status: string;
  stage: string;
  round: number;
  fix_round: number;
  verdict: string | null;
  confidence: number | null;
  halt_reason: string | null;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  usage: { calls: number; failed_calls: number; input_tokens: number; output_tokens: number; tokens: number; cost_usd: number | null; unpriced_calls?: number; seconds: number | null };
  caps: Record<string, unknown>;
  usage_by_provider?: Record<string, { calls: number; input_tokens: number; output_tokens: number; cost_usd: number | null }>;
}

/** What GET /v1/runs/:id/calls answers per call (the api's reply schema's type; a type only, so the CLI's start loads no zod). */
import type { CallSummary } from '@roundtable/contracts';
export type { CallSummary };

/** Where a run ends (the contracts' list, through run-view's zod-free copy). */
export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set(ENDED_RUN_STATUSES);

type Json = Record<string, unknown>;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The same one-line gist the orchestrator puts on agent_call_completed, from the call's parsed reply. */
export function gistOfReply(role: string, label: string, parsed: unknown): string | null {
  if (!parsed || typeof parsed !== 'object') return null;
  const p = parsed as Json;
  switch (role) {
    case 'proposer':
    case 'reviser':
      return `${label}: ${String(p.claim ?? '')}`;
    case 'critic':
      return `${label} ${String(p.verdict ?? '?')} (${arr(p.problems).length} problems)`;
    case 'engineer':
      return `${label} files: ${arr(p.files)
        .map((f) => String((f as Json)?.path ?? '?'))
        .join(', ')}`;
    case 'validator':
    case 'reviewer': {
      const checks = arr(p.requirement_checks);
      const ok = checks.filter((c) => (c as Json)?.satisfied === true).length;
      return `${label} ${String(p.verdict ?? '?')} (${ok}/${checks.length} checks satisfied)`;
    }
    case 'synthesizer':
      return `${label} overall ${String(p.overall_verdict ?? '?')}`;
    default:
      return null;
  }
}

export interface PollOptions {
  intervalMs?: number;
  signal?: AbortSignal;
}

/** Waits ms, or less when the signal aborts (Ctrl-C). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/**
 * For an API without the event stream (404 on /events): rebuilds the events `run --follow`
 * renders from GET /v1/runs/:id and /calls every `intervalMs`. Sequences are local to this
 * client, stage changes are seen only when a poll catches them (TEST may be missed), and
 * reasons are not available; the call lines and the ending are the same as over SSE.
 * Resolves with the run's final status, or null when aborted.
 */
export async function pollRunEvents(
  client: ApiClient,
  runId: string,
  onEvent: (ev: RunEventEnvelope) => void | Promise<void>,
  opts: PollOptions = {},
): Promise<string | null> {
  const intervalMs = opts.intervalMs ?? 500;
  const seen = new Set<string>();
  let sequence = 0;
  let stage: string | null = null;
  let haltSeen = false;
  const emit = async (type: string, payload: Json, at?: string | null) => {
    sequence++;
    await onEvent({ type, run_id: runId, sequence, payload, created_at: at ?? new Date().toISOString() });
  };
  const toStage = async (to: string, at?: string | null) => {
    if (to === stage) return;
    await emit('stage_changed', { from: stage ?? 'INIT', to, reason: '' }, at);
    stage = to;
  };

  for (let first = true; ; first = false) {
    if (opts.signal?.aborted) return null;
    const run = await client.getJson<RunDetail>(`/v1/runs/${seg(runId)}`);
    const calls = await client.getJson<CallSummary[]>(`/v1/runs/${seg(runId)}/calls`);
    if (first) {
      await emit('run_created', { project: run.project, workflow: run.workflow }, run.created_at);
      stage = 'INIT';
    }
    for (const c of calls) {
      if (seen.has(c.id) || (c.status !== 'completed' && c.status !== 'failed')) continue;
      seen.add(c.id);
      await toStage(c.stage, c.finished_at);
      const facts = { call_id: c.id, stage: c.stage, role: c.role, provider: c.provider, model: c.model, attempt: c.attempt, label: c.label };
      if (c.status === 'failed') {
        await emit('agent_call_failed', { ...facts, error: c.error ?? '(no error text was recorded)', error_code: c.error_code }, c.finished_at);
        continue;
      }
      let gist: string | null = c.valid === false ? (c.error ?? 'the reply did not validate') : null;
      if (gist === null) {
        const detail = await client.getJson<{ parsed: unknown }>(`/v1/runs/${seg(runId)}/calls/${seg(c.id)}`);
        gist = gistOfReply(c.role, c.label ?? '', detail.parsed);
      }
      await emit(
        'agent_call_completed',
        {
          ...facts,
          valid: c.valid !== false,
          input_tokens: c.input_tokens,
          output_tokens: c.output_tokens,
          cost_usd: c.cost_usd,
          latency_ms: c.latency_ms,
          gist,
        },
        c.finished_at,
      );
    }
    if (run.halt_reason && !haltSeen) {
      haltSeen = true;
      await emit('run_halted', { reason: run.halt_reason });
    }
    if (TERMINAL_RUN_STATUSES.has(run.status)) {
      if (run.status === 'failed') await emit('run_failed', { reason: run.halt_reason ?? 'the run failed' }, run.finished_at);
      else if (run.status === 'cancelled') await emit('run_cancelled', { reason: null }, run.finished_at);
      else await emit('run_completed', { status: run.status, verdict: run.verdict, confidence: run.confidence }, run.finished_at);
      return run.status;
    }
    await toStage(run.stage);
    await sleep(intervalMs, opts.signal);
  }
}
