import type { ModeratorSynthesis, PanelCompletion, RunStatus } from '@roundtable/contracts';
import { currentScores, moderatorPack } from './panel-context-packs';
import { freshSpec, queueOrHalt, type PanelCallSpec } from './panel-definition';
import type { PanelStep } from './panel-step';
import type { ModeratorRecord, PanelFinishedCall } from './panel-types';
import { closePhases, enterPhase } from './phases';

/** MODERATE → DONE: the moderator's synthesis closes the run, and run_metrics says what it cost. */

export function moderatorSpec(step: PanelStep): PanelCallSpec {
  const label = `M${step.peek('M')}`;
  return freshSpec(step, 'moderator', 'moderator', label, 'M', moderatorPack(step.state));
}

export function startModerate(step: PanelStep, why: string, refs: string[]): void {
  step.go('MODERATE', why, refs);
  enterPhase(step, 'moderate');
  queueOrHalt(step, [moderatorSpec(step)]);
}

export function completion(step: PanelStep): PanelCompletion {
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

export function emitMetrics(step: PanelStep): void {
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

export function finish(step: PanelStep, status: RunStatus): void {
  closePhases(step);
  emitMetrics(step);
  const body = step.state.moderator?.body ?? null;
  step.state.status = status;
  step.emit('run_completed', { status, verdict: body?.overall_recommendation ?? null, confidence: body?.confidence ?? null, panel: completion(step) });
}

export function onModerator(step: PanelStep, call: PanelFinishedCall, label: string, body: ModeratorSynthesis): void {
  const halted = step.state.haltReason !== null;
  const record: ModeratorRecord = { id: step.id(label), label, callId: call.id, partial: halted, body };
  step.state.moderator = record;
  step.records.push({ kind: 'moderator_synthesis', record });
  step.emit('moderator_completed', { synthesis: body });
  step.go('DONE', halted ? `partial synthesis ${label} recorded after the halt` : `${label}: ${body.overall_recommendation}`, [label]);
  finish(step, halted ? 'halted' : 'done');
}
