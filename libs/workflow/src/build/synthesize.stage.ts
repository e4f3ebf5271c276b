import type { Synthesis } from '@roundtable/contracts';
import type { FinishedCall, SynthesisRecord } from './build-types';
import type { Step } from './build-step';
import { endRun, mergeOrEnd } from './gates.stage';

/** The synthesizer's reply closes the run: done, or halted with a partial synthesis. */
export function onSynthesis(step: Step, call: FinishedCall, label: string, body: Synthesis): void {
  const halted = step.state.haltReason !== null;
  const record: SynthesisRecord = { id: step.id(label), label, callId: call.id, partial: halted, body };
  step.state.synthesis = record;
  step.records.push({ kind: 'synthesis', record });
  step.emit('synthesis_recorded', { label, verdict: body.overall_verdict, partial: halted });
  if (halted) {
    step.go('DONE', `partial synthesis ${label} recorded after the halt`, [label]);
    step.state.status = 'halted';
    step.emit('run_completed', { status: 'halted', verdict: body.overall_verdict, confidence: body.confidence });
    return;
  }
  // A valid synthesis of a run that was not halted: the merge gate (or an autonomy-3 merge) comes before the end.
  if (mergeOrEnd(step)) return;
  endRun(step, `${label} valid`);
}
