import {
  ProjectConfig,
  type Critique,
  type Implementation,
  type Problem,
  type ProjectConfigInput,
  type Proposal,
  type Review,
  type Synthesis,
  type TestResult,
  type Verdict,
} from '@roundtable/contracts';
import { replayProviders, templatesFromPlaceholders, WorkflowDriver } from '../engine/workflow-driver.fixture';
import { decide } from './build.workflow';
import type {
  AgentCallCommand,
  BuildEvent,
  BuildRunState,
  Command,
  Decision,
  DomainRecord,
  FinishedCall,
  PromptTemplates,
  StepResult,
} from './build-types';
import { CONTEXT_PLACEHOLDERS } from './context-packs';
import { initialBuildState } from './initial-state';

/**
 * Test-only helpers: tiny templates built from the placeholder lists, reply bodies, and a
 * driver that feeds events to decide() the way the orchestrator would, checking on every step
 * that the input state is left untouched and that every event matches its catalogue schema.
 */

export const TEST_TEMPLATES: PromptTemplates = {
  ...templatesFromPlaceholders<PromptTemplates>(CONTEXT_PLACEHOLDERS),
  trading_rules: '## Trading research rules\n- No look-ahead.',
};

export function testConfig(overrides: Partial<ProjectConfigInput> = {}): ProjectConfig {
  const agent = (provider: string, model: string) => ({ provider, model, timeout_s: 60, max_tokens: 2000, temperature: 0.1 });
  return ProjectConfig.parse({
    project: 'dd-demo',
    objective: 'Implement max_drawdown(equity) in dd.py with pytest tests.',
    requirements: ['Returns 0.0 for monotonically increasing or empty series', 'Handles a series that ends at its trough'],
    providers: replayProviders('anthropic', 'xai', 'openai', 'ollama'),
    agents: {
      proposer: agent('anthropic', 'claude-sonnet-4-5'),
      critic: agent('xai', 'grok-4'),
      reviser: agent('anthropic', 'claude-sonnet-4-5'),
      engineer: agent('openai', 'gpt-5-codex'),
      validator: agent('ollama', 'qwen3:30b-a3b'),
      synthesizer: agent('anthropic', 'claude-sonnet-4-5'),
    },
    ...overrides,
  });
}

// ---- reply bodies -------------------------------------------------------------------------

export function proposalBody(label: string, over: Partial<Proposal> = {}): Proposal {
  return {
    proposal_id: label,
    claim: `claim of ${label}`,
    approach: `approach of ${label}: a running-peak scan`,
    assumptions: ['equity is an account value'],
    evidence: [],
    risks: ['float rounding'],
    tests_required: [`[] -> 0.0`, `${label}: [100, 120, 90, 60] -> 0.5`],
    responses_to_criticism: [],
    confidence: 0.8,
    ...over,
  };
}

export const problem = (severity: Problem['severity'], description: string): Problem => ({ severity, description, location: null });

export function critiqueBody(proposalLabel: string, verdict: Verdict, over: Partial<Critique> = {}): Critique {
  const blocking = verdict === 'REVISE' || verdict === 'REJECT';
  return {
    proposal_id: proposalLabel,
    verdict,
    problems: blocking ? [problem('major', `division by zero in ${proposalLabel}`)] : [],
    counterarguments: verdict === 'ACCEPT' ? ['checked empty, monotone and ends-at-trough inputs'] : [],
    tests_required: ['[0, 1, 2] -> 0.0'],
    confidence: 0.75,
    ...over,
  };
}

export function implementationBody(proposalLabel: string, files: Implementation['files'] = [
  { path: 'dd.py', content: 'def max_drawdown(equity):\n    return 0.0\n' },
  { path: 'test_dd.py', content: 'def test_ends_at_trough():\n    assert True\n' },
], over: Partial<Implementation> = {}): Implementation {
  return { proposal_id: proposalLabel, files, test_command: 'pytest -q', notes: 'running peak', assumptions: [], known_gaps: [], ...over };
}

export function reviewBody(implementationLabel: string, verdict: Verdict = 'ACCEPT', over: Partial<Review> = {}): Review {
  return {
    implementation_id: implementationLabel,
    verdict,
    requirement_checks: [{ requirement: 'Handles a series that ends at its trough', satisfied: true, evidence: 'test_dd.py::test_ends_at_trough' }],
    problems: [problem('minor', 'no single-element test')],
    confidence: 0.7,
    ...over,
  };
}

export function synthesisBody(verdict: Verdict = 'ACCEPT', over: Partial<Synthesis> = {}): Synthesis {
  return {
    what_was_built: 'dd.py with max_drawdown and test_dd.py',
    test_summary: 'pytest -q: 5 passed after 1 fix round',
    disagreements: [],
    remaining_risks: ['negative equity defined by assumption'],
    recommended_next_experiment: 'property-based test against an O(n^2) reference',
    overall_verdict: verdict,
    confidence: 0.82,
    ...over,
  };
}

export function testResult(exitCode: number, over: Partial<TestResult> = {}): TestResult {
  const failed = exitCode === 0 ? 0 : 1;
  return {
    command: 'python -m pytest -q',
    exit_code: exitCode,
    passed: 4,
    failed,
    errors: 0,
    duration_s: 0.4,
    stdout_tail: failed ? 'FAILED test_dd.py::test_ends_at_trough - assert 0.5 == 0.6\n1 failed, 4 passed' : '5 passed',
    timed_out: false,
    ...over,
  };
}

// ---- the driver ---------------------------------------------------------------------------

export interface ReplyOptions {
  tokens?: number;
  costUsd?: number;
}

export class BuildDriver extends WorkflowDriver<BuildRunState, BuildEvent, StepResult, Decision, DomainRecord> {
  readonly calls: AgentCallCommand[] = [];
  readonly ops: Exclude<Command, AgentCallCommand>[] = [];
  pendingCall: AgentCallCommand | null = null;

  constructor(
    config: ProjectConfig = testConfig(),
    readonly templates: PromptTemplates = TEST_TEMPLATES,
    runId = 'run1',
  ) {
    super(initialBuildState(runId, config), (state, event, prices) => decide(state, event, { templates, prices }), 'decide');
  }

  get lastOp(): Exclude<Command, AgentCallCommand> {
    return this.ops[this.ops.length - 1];
  }

  step(event: BuildEvent): StepResult {
    const result = this.run(event);
    for (const c of result.commands) {
      if (c.kind === 'agent_call') {
        this.calls.push(c);
        this.pendingCall = c;
        this.reserve(c, 1);
      } else {
        this.ops.push(c);
      }
    }
    return result;
  }

  private settle(call: AgentCallCommand, opts: ReplyOptions): void {
    this.settleUsage(call, { calls: 1, tokens: opts.tokens ?? call.estimatedTokens + 50, costUsd: opts.costUsd ?? 0.01 });
  }

  private takeCall(): AgentCallCommand {
    const call = this.pendingCall;
    if (!call) throw new Error('no agent call is pending');
    this.pendingCall = null;
    return call;
  }

  private finished(call: AgentCallCommand, patch: Partial<FinishedCall>): FinishedCall {
    return this.finishedOf(call, patch);
  }

  start(): StepResult {
    return this.step({ type: 'start' });
  }

  prepare(tree: string[] = []): StepResult {
    const op = this.lastOp;
    return this.step({ type: 'workspace_prepared', opId: op.opId, path: '/ws/run1', tree });
  }

  /** start + workspace ready: the proposer call for P1 is pending. */
  begin(tree: string[] = []): this {
    this.start();
    this.prepare(tree);
    return this;
  }

  reply(parsed: unknown, opts: ReplyOptions = {}): StepResult {
    const call = this.takeCall();
    this.settle(call, opts);
    return this.step({ type: 'agent_call_finished', call: this.finished(call, { parsed, responseText: JSON.stringify(parsed) }) });
  }

  /** A reply that failed its schema (the worker's verdict). */
  invalid(error: string, parsed: unknown = { nope: true }, patch: Partial<FinishedCall> = {}): StepResult {
    const call = this.takeCall();
    this.settle(call, {});
    return this.step({
      type: 'agent_call_finished',
      call: this.finished(call, { valid: false, parsed, responseText: JSON.stringify(parsed), error, errorCode: 'SCHEMA_INVALID', ...patch }),
    });
  }

  /** A call that failed before a usable reply (guard, provider error, usage limit); `patch` adds retry facts. */
  fail(errorCode: string, error: string, patch: Partial<FinishedCall> = {}): StepResult {
    const call = this.takeCall();
    this.settle(call, { tokens: 0, costUsd: 0 });
    return this.step({ type: 'agent_call_finished', call: this.finished(call, { status: 'failed', valid: null, error, errorCode, ...patch }) });
  }

  /** A valid reply that came only after the provider-worker retried transient failures. */
  replyAfterRetries(parsed: unknown, priorAttempts: NonNullable<FinishedCall['priorAttempts']>): StepResult {
    const call = this.takeCall();
    this.settle(call, {});
    return this.step({
      type: 'agent_call_finished',
      call: this.finished(call, { parsed, responseText: JSON.stringify(parsed), retry: priorAttempts.length, priorAttempts }),
    });
  }

  applied(tree: string[] = ['dd.py', 'test_dd.py']): StepResult {
    const op = this.lastOp;
    if (op.kind !== 'workspace.apply') throw new Error(`expected workspace.apply, got ${op.kind}`);
    return this.step({ type: 'files_applied', opId: op.opId, implementationLabel: op.implementationLabel, tree });
  }

  rejected(error: string): StepResult {
    const op = this.lastOp;
    if (op.kind !== 'workspace.apply') throw new Error(`expected workspace.apply, got ${op.kind}`);
    return this.step({ type: 'files_rejected', opId: op.opId, implementationLabel: op.implementationLabel, error });
  }

  /** The test-runner read what the last workspace.read asked for: `contents` by path, a missing path is not found. */
  read(contents: Record<string, string> = {}): StepResult {
    const op = this.lastOp;
    if (op.kind !== 'workspace.read') throw new Error(`expected workspace.read, got ${op.kind}`);
    const files = op.paths.map((path) =>
      path in contents
        ? { path, content: contents[path], bytes: contents[path].length, truncated: false, error: null }
        : { path, content: null, bytes: null, truncated: false, error: 'no such file in the workspace' },
    );
    return this.step({ type: 'files_read', opId: op.opId, files });
  }

  tests(result: TestResult): StepResult {
    const op = this.lastOp;
    if (op.kind !== 'tests.run') throw new Error(`expected tests.run, got ${op.kind}`);
    return this.step({
      type: 'tests_finished',
      opId: op.opId,
      testRun: { id: `${this.state.runId}-${op.testLabel}`, label: op.testLabel, implementationLabel: op.implementationLabel, result },
    });
  }

  testsFailedToRun(error: string): StepResult {
    const op = this.lastOp;
    return this.step({ type: 'tests_failed_to_run', opId: op.opId, error });
  }

  /** The pending call's user prompt. */
  prompt(): string {
    if (!this.pendingCall) throw new Error('no agent call is pending');
    return this.pendingCall.messages.map((m) => m.content).join('\n');
  }
}

/**
 * The seed §9 run: P1 → C1 REVISE → P2 → C2 ACCEPT → I1 → T1 fail → I1f1 → T2 pass → R1 → S1.
 * P2 rejects C1's minor NaN point, so one disagreement stays unresolved.
 */
export function happyPath(): BuildDriver {
  const d = new BuildDriver().begin();
  d.reply(proposalBody('P1', { claim: 'Track running peak; raise on non-positive equity' }));
  d.reply(critiqueBody('P1', 'REVISE', { problems: [problem('major', 'Division by zero when peak == 0'), problem('minor', 'NaN is skipped silently')] }));
  d.reply(
    proposalBody('P2', {
      revision_of: 'P1',
      claim: 'Track running peak; steps with a non-positive peak contribute 0.0',
      responses_to_criticism: [
        { problem: 'major: division by zero when peak == 0', action: 'fixed', reason: 'clamped' },
        { problem: 'minor: NaN is skipped silently', action: 'rejected', reason: 'no requirement mentions NaN' },
      ],
    }),
  );
  d.reply(critiqueBody('P2', 'ACCEPT'));
  d.reply(implementationBody('P2'));
  d.applied();
  d.tests(testResult(1));
  d.reply(implementationBody('P2', [{ path: 'dd.py', content: 'def max_drawdown(equity):\n    return 0.5\n' }], { notes: 'off-by-one: the loop stopped one element early' }));
  d.applied();
  d.tests(testResult(0, { passed: 5, stdout_tail: '5 passed in 0.03s' }));
  d.reply(reviewBody('I1f1'));
  d.reply(
    synthesisBody('ACCEPT', {
      disagreements: [
        {
          topic: 'Zero/negative peak handling',
          positions: [
            { agent_role: 'critic', position: 'C1: division by zero' },
            { agent_role: 'reviser', position: 'P2: clamped to 0.0' },
          ],
          resolved: true,
          resolution: 'C2 ACCEPT',
        },
      ],
    }),
  );
  return d;
}
