import { decideExperiment, type ExperimentInterpretation, type Interpretation, type InterpretationReview, type RunStatus } from '@roundtable/contracts';
import { raiseQuestion } from '../engine/answers';
import { askOrHalt } from './experiment-definition';
import { decisionOf, type ExperimentStep } from './experiment-step';
import type { ExperimentFinishedCall } from './experiment-types';

/**
 * INTERPRET → REVIEW → DONE. The interpreter reads each criterion with its evidence; the critic
 * reviews the reading without knowing who wrote it. The DECISION IS CODE'S: KILL if any failure
 * criterion holds, else PASS if every success criterion holds, else INCONCLUSIVE
 * (contracts' decideExperiment). An interpreter that decides otherwise is recorded as an override
 * request, never applied; a critic that disagrees makes it INCONCLUSIVE and asks a person.
 */

export function onInterpretation(step: ExperimentStep, call: ExperimentFinishedCall, label: string, body: Interpretation): void {
  step.state.interpretation = { label, callId: call.id, body };
  if (step.state.haltReason !== null) return finishDecided(step, 'halted', [`not reviewed: the run halted (${step.state.haltReason})`]);
  step.go('REVIEW', `${label} read the criteria: the critic reviews the reading, author-blind`, [label]);
  askOrHalt(step, 'review');
}

export function onReview(step: ExperimentStep, call: ExperimentFinishedCall, label: string, body: InterpretationReview): void {
  step.state.review = { label, callId: call.id, body };
  if (step.state.haltReason !== null) return finishDecided(step, 'halted', []);
  finishDecided(step, 'done', []);
}

/** The close without a model: decided from the metrics when there are any, else ended without a decision. */
export function closeWithoutModel(step: ExperimentStep, why: string): void {
  if (step.state.result) return finishDecided(step, 'halted', [`fact-only close: ${why}`]);
  finishUndecided(step, 'halted');
}

/** The interpretation as the experiments row keeps it: code's decision, and everything said beside it. */
export function interpretationOf(step: ExperimentStep, notes: string[]): ExperimentInterpretation {
  const { preregistration, result, interpretation, review } = step.state;
  const computed = decideExperiment(preregistration!, result!.metrics);
  const readings = new Map((interpretation?.body.readings ?? []).map((r) => [r.criterion_id, r]));
  const criteria = computed.criteria.map((c) => {
    const r = readings.get(c.id);
    return { ...c, reading: r ? { holds: r.holds, evidence: r.evidence } : null };
  });
  const misread = criteria.filter((c) => c.reading && c.reading.holds !== c.holds);
  const said = interpretation?.body.decision ?? null;
  const disagrees = review !== null && !review.body.agrees;
  const openQuestion = disagrees
    ? `The critic (${review!.label}) disagrees with ${interpretation?.label ?? 'the reading'} of "${preregistration!.title}": ${review!.body.disagreements.join('; ') || review!.body.summary}. Which reading is right, and should the experiment be run again?`
    : null;
  const trading = (interpretation?.body as { trading_critique?: Record<string, unknown> } | undefined)?.trading_critique ?? null;
  return {
    criteria,
    computed: computed.decision,
    interpreter_decision: said,
    override_request: said && said !== computed.decision ? { decision: said, reason: interpretation!.body.summary } : null,
    summary: interpretation?.body.summary ?? null,
    review: review ? { agrees: review.body.agrees, disagreements: review.body.disagreements, summary: review.body.summary } : null,
    open_question: openQuestion,
    notes: [
      ...notes,
      ...misread.map((c) => `${interpretation!.label} reads ${c.id} as ${c.reading!.holds ? 'holding' : 'not holding'}; by the metrics it ${c.holds ? 'holds' : 'does not'} (code's reading stands)`),
      ...(disagrees ? [`the critic disagrees: the decision is INCONCLUSIVE (code computed ${computed.decision}) until a person settles it`] : []),
    ],
    trading_critique: trading,
  };
}

export function finishDecided(step: ExperimentStep, status: RunStatus, notes: string[]): void {
  const outcome = interpretationOf(step, notes);
  step.state.outcome = outcome;
  const decision = decisionOf(step.state)!;
  if (outcome.open_question) raiseQuestion(step, 'critic', outcome.open_question);
  step.records.push({ kind: 'experiment_decided', experimentId: step.config.experiment_id, decision, interpretation: outcome });
  step.emit('experiment_decided', {
    decision,
    computed: outcome.computed,
    override_request: outcome.override_request,
    review_agrees: outcome.review?.agrees ?? null,
    open_question: outcome.open_question,
  });
  reportToSource(step, decision, outcome);
  const refs = [step.state.interpretation?.label, step.state.review?.label].filter((l): l is string => !!l);
  if (step.state.stage !== 'DONE') step.go('DONE', `decided by code from the criteria: ${decision}${outcome.computed !== decision ? ` (computed ${outcome.computed})` : ''}`, refs);
  step.state.status = status;
  step.emit('run_completed', { status, verdict: decision, confidence: null });
}

/** The end of a run with no decision: a refused draft, or a halt before there were metrics. */
export function finishUndecided(step: ExperimentStep, status: RunStatus): void {
  step.state.status = status;
  step.emit('run_completed', { status, verdict: null, confidence: null });
}

/**
 * Where a drafted experiment came from learns its decision: a build's open question is answered
 * with it (the build goes on with the decision as evidence), an idea's ledger gets an
 * experiment_result entry.
 */
export function reportToSource(step: ExperimentStep, decision: string, outcome: ExperimentInterpretation): void {
  const source = step.config.source;
  if (!source) return;
  const id = step.config.experiment_id;
  const title = step.state.preregistration!.title;
  const held = outcome.criteria.filter((c) => c.holds).map((c) => `${c.id} \`${c.expr}\``);
  const metrics = Object.entries(step.state.result!.metrics).map(([k, v]) => `${k}=${v}`).join(', ');
  const text =
    `Experiment ${id} "${title}" decided ${decision} by code from its preregistered criteria` +
    `${outcome.computed !== decision ? ` (computed ${outcome.computed}; the critic disagreed)` : ''}: ` +
    `criteria that hold: ${held.join(', ') || 'none'}; metrics: ${metrics}.` +
    `${outcome.override_request ? ` The interpreter asked for ${outcome.override_request.decision} (not applied).` : ''}`;
  if ('build_run_id' in source) {
    step.commands.push({ kind: 'run.answer', runId: source.build_run_id, questionId: source.question_id, answer: text, experimentId: id });
  } else {
    step.records.push({ kind: 'idea_evidence', experimentId: id, ideaId: source.idea_id, claim: text, source: `experiment ${id} (run ${step.runId})` });
  }
}
