import type { ProjectConfigInput } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, implementationBody, proposalBody, reviewBody, synthesisBody, testConfig, testResult } from './build-scenario.fixture';
import type { AgentCallCommand, FinishedCall } from './build-types';
import { renderBuildReport } from '../report';

/**
 * The optional reviewer (issue 21 item 7): after the validator's review, a named reviewer
 * reviews the same implementation from the same artifact-only pack (R1 → R1r); its review is
 * data for the synthesizer and the report, never a branch.
 */

const REVIEWER = { provider: 'ollama', model: 'qwen3:32b', timeout_s: 60, max_tokens: 2000, temperature: 0.1 };

function withReviewer(overrides: Partial<ProjectConfigInput> = {}): Partial<ProjectConfigInput> {
  const base = testConfig();
  return { agents: { ...base.agents, reviewer: REVIEWER }, ...overrides };
}

/** P1 → C1 ACCEPT → I1 → T1 pass: the validator's call R1 is pending. */
function atReview(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = new BuildDriver(testConfig(overrides)).begin(['README.md']);
  d.reply(proposalBody('P1'));
  d.reply(critiqueBody('P1', 'ACCEPT'));
  d.reply(implementationBody('P1'));
  d.applied();
  d.tests(testResult(0));
  return d;
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

const userPrompt = (call: AgentCallCommand): string => call.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');

/** The user prompt without its reading section (each role says in its own words why it is not offered) and its own label. */
const packOf = (call: AgentCallCommand): string => userPrompt(call).replace(/## reading\n[^\n]*\n/, '').replace(/R1r|R1/g, '<label>');

/** The finished call a provider-worker would report for `call`: a valid reply `parsed`. */
const finishedFor = (call: AgentCallCommand, parsed: unknown): FinishedCall => ({
  id: call.callId,
  role: call.role,
  stage: call.stage,
  label: call.label,
  attempt: call.attempt,
  provider: call.provider,
  model: call.model,
  status: 'completed',
  valid: true,
  parsed,
  responseText: JSON.stringify(parsed),
  error: null,
  errorCode: null,
  schemaName: call.schemaName,
  messages: call.messages,
});

describe('the second review', () => {
  it("asks the reviewer after the validator, on the same implementation and the validator's pack, still in REVIEW", () => {
    const d = atReview(withReviewer());
    const validatorCall = pending(d);
    expect(validatorCall).toMatchObject({ role: 'validator', label: 'R1', stage: 'REVIEW' });
    const r = d.reply(reviewBody('I1', 'REVISE'));
    expect(r.records.map((x) => x.kind)).toEqual(['critique']);
    expect(r.decisions).toEqual([]);
    expect(r.state.stage).toBe('REVIEW');
    const reviewerCall = pending(d);
    expect(reviewerCall).toMatchObject({ role: 'reviewer', label: 'R1r', stage: 'REVIEW', provider: 'ollama', model: 'qwen3:32b', schemaName: 'Review' });
    expect(reviewerCall.messages[0].content).toContain('reviewer');
    expect(reviewerCall.contextRefs).toEqual(validatorCall.contextRefs);
    // The artifact-only pack, with nothing of the validator's review in it.
    expect(packOf(reviewerCall)).toBe(packOf(validatorCall));
    expect(userPrompt(reviewerCall)).not.toContain('no single-element test');
  });

  it("goes on to the synthesizer whatever the reviewer says, and the synthesizer sees both reviews apart", () => {
    const d = atReview(withReviewer());
    d.reply(reviewBody('I1', 'ACCEPT'));
    const r = d.reply(reviewBody('I1', 'REJECT', { problems: [{ severity: 'blocker', description: 'ignores negative equity', location: 'dd.py:2' }] }));
    expect(r.decisions).toEqual([
      { from: 'REVIEW', to: 'SYNTHESIZE', reason: 'R1r (second review) says REJECT on I1: a second opinion for the synthesizer to weigh, not a branch', refs: ['R1r', 'I1'] },
    ]);
    expect(r.state.critiques.map((c) => [c.label, c.targetLabel, c.verdict])).toEqual([
      ['C1', 'P1', 'ACCEPT'],
      ['R1', 'I1', 'ACCEPT'],
      ['R1r', 'I1', 'REJECT'],
    ]);
    const synth = pending(d);
    expect(synth).toMatchObject({ role: 'synthesizer', label: 'S1' });
    const prompt = userPrompt(synth);
    const section = (name: string) => new RegExp(`## ${name}\\n([\\s\\S]*?)\\n## `).exec(prompt)?.[1] ?? '';
    const [reviews, secondReviews] = [section('reviews'), section('second_reviews')];
    expect(reviews).toContain('<evidence id="R1" type="review"');
    expect(reviews).not.toContain('R1r');
    expect(secondReviews).toContain('<evidence id="R1r" type="second_review"');
    expect(secondReviews).toContain('ignores negative equity');
    expect(synth.contextRefs).toEqual(expect.arrayContaining(['R1', 'R1r']));
    d.reply(synthesisBody('REVISE'));
    expect(d.state).toMatchObject({ status: 'done', stage: 'DONE' });
  });

  it('without a reviewer the validator closes REVIEW as before, and the synthesizer is told there was none', () => {
    const d = atReview();
    const r = d.reply(reviewBody('I1'));
    expect(r.state.stage).toBe('SYNTHESIZE');
    expect(pending(d).role).toBe('synthesizer');
    expect(userPrompt(pending(d))).toContain('(no reviewer in this run)');
  });

  it("a stale validator reply in the reviewer's turn changes nothing", () => {
    const d = atReview(withReviewer());
    const validatorCall = pending(d);
    d.reply(reviewBody('I1'));
    const reviewerCall = pending(d);
    const r = d.step({ type: 'agent_call_finished', call: finishedFor(validatorCall, reviewBody('I1', 'REJECT')) });
    expect(r.records).toEqual([]);
    expect(d.pendingCall).toBe(reviewerCall);
  });

  it("a failed second review does not halt the run: the synthesizer goes on without it", () => {
    const d = atReview(withReviewer());
    d.reply(reviewBody('I1'));
    const reviewerCall = pending(d);
    const r = d.fail('PROVIDER_ERROR', 'connection refused');
    expect(r.state.haltReason).toBeNull();
    expect(r.decisions).toEqual([
      {
        from: 'REVIEW',
        to: 'SYNTHESIZE',
        reason: "the reviewer's second review failed (PROVIDER_ERROR: connection refused); the synthesizer goes on without it",
        refs: [reviewerCall.callId],
      },
    ]);
    expect(pending(d).role).toBe('synthesizer');
    expect(userPrompt(pending(d))).toContain('(no second review was recorded)');
  });

  it('a resume at REVIEW of a run halted during the second review asks only the reviewer again (the validator review is reused)', () => {
    const d = atReview(withReviewer());
    d.reply(reviewBody('I1'));
    d.step({ type: 'halt', reason: 'operator halt' });
    d.reply(synthesisBody('REVISE'));
    expect(d.state.status).toBe('halted');
    d.step({ type: 'resume', at: 'REVIEW', rerun: false });
    expect(pending(d)).toMatchObject({ role: 'reviewer', label: 'R1r' });
  });

  it('the report lists the second review in its own section', () => {
    const d = atReview(withReviewer());
    d.reply(reviewBody('I1'));
    d.reply(reviewBody('I1', 'REVISE', { problems: [{ severity: 'major', description: 'the tests never try a single element', location: 'test_dd.py:1' }] }));
    d.reply(synthesisBody());
    const report = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { calls: 6, failedCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: null, seconds: 1 } });
    const review = report.slice(report.indexOf('## Review'), report.indexOf('## Second review'));
    const second = report.slice(report.indexOf('## Second review'), report.indexOf('## Disagreements'));
    expect(review).toContain('R1 on I1 → ACCEPT (confidence 0.7)');
    expect(review).not.toContain('R1r');
    expect(second).toContain("By the reviewer, on the same artifact as the validator: an opinion for the synthesis, which never changed the run's course.");
    expect(second).toContain('R1r on I1 → REVISE (confidence 0.7)');
    expect(second).toContain('- major: the tests never try a single element');
  });

  it('the report has no second-review section without a reviewer', () => {
    const d = atReview();
    d.reply(reviewBody('I1'));
    d.reply(synthesisBody());
    const report = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { calls: 5, failedCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: null, seconds: 1 } });
    expect(report).toContain('## Review');
    expect(report).not.toContain('## Second review');
  });
});
