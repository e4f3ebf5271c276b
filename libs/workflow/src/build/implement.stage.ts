import type { Implementation, Review } from '@roundtable/contracts';
import type { CritiqueRecord, FinishedCall, ImplementationDiff, ImplementationRecord, TestRunRecord } from './build-types';
import { callEngineer, callReviewer, callSynthesizer, callValidator } from './build-calls';
import { hasReviewer } from './second-review';
import { haltBuild } from './build-definition';
import { latestImplementation, latestProposal, type Step } from './build-step';
import { closeSolo, isSolo } from './solo';

/** Build, test, review (seed §8): IMPLEMENT → TEST → FIX … → REVIEW → SYNTHESIZE. */

export function setImplementationStatus(step: Step, label: string, status: ImplementationRecord['status'], applyError: string | null): void {
  const i = step.state.implementations.findIndex((r) => r.label === label);
  if (i < 0) return;
  step.state.implementations[i] = { ...step.state.implementations[i], status, applyError };
  step.records.push({ kind: 'implementation_status', label, status, applyError });
}

/** `call`: the call whose reply it is (an agent-mode engineer's: the turn that called finish). */
export function onImplementation(step: Step, call: Pick<FinishedCall, 'id'>, label: string, body: Implementation): void {
  const proposal = latestProposal(step.state);
  // A solo run implements the objective and requirements: it has no proposal, ever.
  if (!proposal && !isSolo(step.state)) return;
  const record: ImplementationRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    proposalLabel: proposal?.label ?? null,
    fixRound: step.state.fixRound,
    status: 'pending',
    applyError: null,
    body,
  };
  step.state.implementations.push(record);
  step.records.push({ kind: 'implementation', record });
  step.emit('implementation_recorded', { label, files: body.files.map((f) => f.path), fix_round: step.state.fixRound });
  step.commands.push({ kind: 'workspace.apply', opId: step.opId(), implementationLabel: label });
}

function attachDiff(step: Step, label: string, diff: ImplementationDiff): void {
  const i = step.state.implementations.findIndex((r) => r.label === label);
  if (i >= 0) step.state.implementations[i] = { ...step.state.implementations[i], diff };
}

export function pendingImplementation(step: Step, label: string): ImplementationRecord | undefined {
  if (step.state.stage !== 'IMPLEMENT' && step.state.stage !== 'FIX') return undefined;
  const impl = latestImplementation(step.state);
  return impl && impl.label === label && impl.status === 'pending' ? impl : undefined;
}

export function onFilesApplied(step: Step, label: string, tree: string[], diff?: ImplementationDiff): void {
  // The commit belongs to the implementation whatever the stage: a state rebuilt from the
  // tables (BUILD_RUN_STATE) attaches every recorded commit, so the snapshot does too.
  if (diff) attachDiff(step, label, diff);
  const impl = pendingImplementation(step, label);
  if (!impl) return;
  setImplementationStatus(step, label, 'applied', null);
  step.state.workspace = { ...step.state.workspace, tree: [...tree] };
  step.go('TEST', `${label} files written (path-checked)`, [label]);
  const command = step.config.test_command ?? impl.body.test_command;
  step.commands.push({
    kind: 'tests.run',
    opId: step.opId(),
    implementationLabel: label,
    testLabel: `T${step.bump('T')}`,
    command,
    timeoutS: step.config.test_timeout_s,
  });
  step.emit('tests_started', { implementation: label, command });
}

export function onFilesRejected(step: Step, label: string, error: string): void {
  const impl = pendingImplementation(step, label);
  if (!impl) return;
  setImplementationStatus(step, label, 'rejected', error);
  step.emit('files_rejected', { label, error });
  haltBuild(step, `implementation ${label} rejected: ${error}`, { refs: [label] });
}

export function onTestsFinished(step: Step, run: TestRunRecord): void {
  if (step.state.stage !== 'TEST' || step.state.testRuns.some((t) => t.label === run.label)) return;
  const impl = latestImplementation(step.state);
  if (!impl) return;
  step.state.testRuns.push(run);
  const n = Number(/^T(\d+)$/.exec(run.label)?.[1] ?? 0);
  if (n > (step.state.counters.T ?? 0)) step.state.counters.T = n;
  const r = run.result;
  step.emit('tests_completed', {
    label: run.label,
    exit_code: r.exit_code,
    passed: r.passed,
    failed: r.failed,
    errors: r.errors,
    timed_out: r.timed_out,
  });

  const refs = [run.label, impl.label];
  const { max_fix_rounds } = step.config.budget;
  if (r.exit_code === 0) {
    // Solo: no review and no synthesis; the run closes on the facts.
    if (isSolo(step.state)) return closeSolo(step, run);
    step.go('REVIEW', `${run.label} passed (exit 0)`, refs);
    return callValidator(step, impl);
  }
  if (step.state.fixRound < max_fix_rounds) {
    step.state.fixRound += 1;
    step.go('FIX', `${run.label} failed (exit ${r.exit_code}): fix round ${step.state.fixRound} of ${max_fix_rounds}`, refs);
    const proposal = isSolo(step.state) ? null : (step.state.proposals.find((p) => p.label === impl.proposalLabel) ?? latestProposal(step.state)!);
    return callEngineer(step, proposal);
  }
  if (isSolo(step.state)) return closeSolo(step, run);
  step.go(
    'REVIEW',
    `${run.label} failed (exit ${r.exit_code}) and the fix rounds are used up (${step.state.fixRound} of ${max_fix_rounds}); the validator sees the failing tests`,
    refs,
  );
  callValidator(step, impl);
}

export function onTestsFailedToRun(step: Step, error: string): void {
  if (step.state.stage !== 'TEST') return;
  const impl = latestImplementation(step.state);
  haltBuild(step, `tests could not run: ${error}`, { refs: impl ? [impl.label] : [] });
}

export function onReview(step: Step, call: FinishedCall, label: string, body: Review): void {
  const impl = latestImplementation(step.state);
  if (!impl) return;
  const record: CritiqueRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    targetKind: 'implementation',
    targetLabel: impl.label,
    verdict: body.verdict,
    body,
  };
  step.state.critiques.push(record);
  step.records.push({ kind: 'critique', record });
  step.emit('review_recorded', { label, verdict: body.verdict });
  if (call.role === 'reviewer') {
    step.go('SYNTHESIZE', `${label} (second review) says ${body.verdict} on ${impl.label}: a second opinion for the synthesizer to weigh, not a branch`, [label, impl.label]);
    return callSynthesizer(step);
  }
  // The second review comes before the synthesis whatever the validator said: it is asked on the same artifact.
  if (hasReviewer(step.state)) return callReviewer(step, impl, record);
  step.go('SYNTHESIZE', `${label} says ${body.verdict} on ${impl.label}: the verdict is data for the synthesizer, not a branch`, [label, impl.label]);
  callSynthesizer(step);
}
