import type { ProjectConfigInput } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, implementationBody, proposalBody, reviewBody, testConfig, testResult } from './build-scenario.fixture';
import type { AgentCallCommand } from './build-types';

/**
 * Role permissions are enforced (issue 21 item 6): a role with `workspace: none` is shown no
 * file tree, is offered no reading, and a file request it makes anyway is refused, recorded and
 * answered with a note, never read.
 */

const TREE = ['README.md', 'src/secret_sauce.py', 'tests/test_app.py'];

function critiqueOnRepo(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = new BuildDriver(testConfig({ repo: '/repos/app', ...overrides })).begin(TREE);
  d.reply(proposalBody('P1'));
  return d;
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

const userPrompt = (call: AgentCallCommand): string => call.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');

describe('role permissions: workspace none', () => {
  it('the default critic (workspace read) sees the tree on a repository: the baseline the refusal is measured against', () => {
    const call = pending(critiqueOnRepo());
    expect(call.role).toBe('critic');
    expect(userPrompt(call)).toContain('src/secret_sauce.py');
    expect(call.schemaName).toBe('CritiqueOrFilesRequested');
  });

  it('a critic with workspace none never sees the tree and is offered no reading', () => {
    const call = pending(critiqueOnRepo({ permissions: { critic: { workspace: 'none' } } }));
    expect(call.role).toBe('critic');
    const prompt = userPrompt(call);
    for (const path of TREE) expect(prompt).not.toContain(path);
    expect(prompt).toContain('(not shown: the critic has no workspace access (permissions.critic.workspace: none))');
    expect(prompt).toContain('(not offered: the critic has no workspace access (permissions.critic.workspace: none)');
    expect(prompt).not.toContain('"paths"');
    expect(call.schemaName).toBe('Critique');
  });

  it("a critic with workspace none asking for files under its Critique schema fails the schema (repaired, nothing read)", () => {
    const d = critiqueOnRepo({ permissions: { critic: { workspace: 'none' } } });
    const r = d.reply({ paths: ['src/secret_sauce.py'] });
    expect(r.commands.some((c) => c.kind === 'workspace.read')).toBe(false);
    expect(pending(d)).toMatchObject({ role: 'critic', label: 'C1', attempt: 2, schemaName: 'Critique' });
  });

  it('a request that arrives anyway (a call queued under the request schema) is refused whole, recorded, and the question asked again with a note', () => {
    const d = critiqueOnRepo({ permissions: { critic: { workspace: 'none' } } });
    const asking = { ...pending(d), schemaName: 'CritiqueOrFilesRequested' as const };
    d.pendingCall = asking;
    const r = d.reply({ paths: ['src/secret_sauce.py', 'README.md'], reason: 'curious' });
    expect(r.commands.some((c) => c.kind === 'workspace.read')).toBe(false);
    expect(r.state.fileReads).toEqual([
      { opId: 'run1-op2', label: 'C1', role: 'critic', callId: asking.callId, paths: [], reason: 'curious', refused: ['src/secret_sauce.py', 'README.md'], files: [] },
    ]);
    expect(r.events.find((e) => e.type === 'files_requested')?.payload).toEqual({
      role: 'critic',
      label: 'C1',
      call_id: asking.callId,
      paths: [],
      round: 1,
      refused: ['src/secret_sauce.py', 'README.md'],
    });
    const again = pending(d);
    expect(again).toMatchObject({ role: 'critic', label: 'C1', schemaName: 'Critique' });
    expect(again.callId).not.toBe(asking.callId);
    const prompt = userPrompt(again);
    expect(prompt).toMatch(/Request 1: src\/secret_sauce\.py, README\.md\n- not read: the critic has no workspace access \(permissions\.critic\.workspace: none\)/);
    expect(again.contextRefs).toContain('run1-op2');
    // The answer after the refusal is the critique, as usual.
    d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(d.state.stage).toBe('IMPLEMENT');
  });

  it('a validator with workspace none gets the files and the test run but no tree and no reading', () => {
    const d = critiqueOnRepo({ permissions: { validator: { workspace: 'none' } } });
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    d.applied(['README.md', 'src/secret_sauce.py', 'dd.py', 'test_dd.py']);
    d.tests(testResult(0));
    const call = pending(d);
    expect(call.role).toBe('validator');
    expect(call.schemaName).toBe('Review');
    const prompt = userPrompt(call);
    expect(prompt).not.toContain('src/secret_sauce.py');
    expect(prompt).toContain('def max_drawdown'); // the implementation's own files are the artifact under review
    expect(prompt).toContain('(not shown: the validator has no workspace access (permissions.validator.workspace: none))');
    d.reply(reviewBody('I1'));
    expect(d.state.stage).toBe('SYNTHESIZE');
  });

  it('the tests still run after the engineer whatever run_tests says: running them is the pipeline\'s step, not a role\'s', () => {
    const d = critiqueOnRepo({ permissions: { validator: { workspace: 'read', run_tests: false }, engineer: { workspace: 'write', run_tests: false } } });
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    d.applied();
    expect(d.lastOp).toMatchObject({ kind: 'tests.run', command: 'pytest -q' });
  });
});
