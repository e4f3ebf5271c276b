import type { ProjectConfigInput } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, implementationBody, proposalBody, reviewBody, testConfig, testResult } from './build-scenario.fixture';
import type { AgentCallCommand } from './build-types';

/** Reading before writing (issue 4): on an existing repository, critic, engineer and validator may ask for files first. */

const TREE = ['README.md', 'src/app.py', 'tests/test_app.py'];
const APP = 'def area(w, h):\n    return w * h\n';

function onRepo(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = new BuildDriver(testConfig({ repo: '/repos/app', ...overrides })).begin(TREE);
  d.reply(proposalBody('P1'));
  return d;
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

describe('reading before writing: the critic', () => {
  it('is offered the request on a repository: tree in the prompt, the artifact-or-request schema', () => {
    const d = onRepo();
    const call = pending(d);
    expect(call.label).toBe('C1');
    expect(call.schemaName).toBe('CritiqueOrFilesRequested');
    expect(d.prompt()).toContain('src/app.py');
    expect(d.prompt()).toMatch(/reply with only \{"paths"[^\n]*2 requests left/);
  });

  it('is not offered it on a greenfield run', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    expect(pending(d).schemaName).toBe('Critique');
    expect(d.prompt()).toContain('(not offered: this run has no existing repository to read from)');
  });

  it('a request queues a read op, records the request, and asks nothing until the files are read', () => {
    const d = onRepo();
    const asking = pending(d);
    const r = d.reply({ paths: ['src/app.py', 'missing.py', 'src/app.py'], reason: 'see the code' });
    expect(r.commands).toEqual([
      {
        kind: 'workspace.read',
        opId: 'run1-op2',
        label: 'C1',
        role: 'critic',
        callId: asking.callId,
        paths: ['src/app.py', 'missing.py'],
        reason: 'see the code',
        refused: [],
        maxBytesPerFile: 32 * 1024,
      },
    ]);
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_completed', 'files_requested']);
    expect(r.events[0].payload).toMatchObject({ gist: 'C1: asks to read src/app.py, missing.py, src/app.py' }); // as the model asked
    expect(r.events[1].payload).toEqual({ role: 'critic', label: 'C1', call_id: asking.callId, paths: ['src/app.py', 'missing.py'], round: 1 });
    expect(r.decisions).toEqual([]);
    expect(r.state.stage).toBe('CRITIQUE');
    expect(d.pendingCall).toBeNull();
  });

  it('the files come back in evidence blocks and the same answer (C1) is asked again', () => {
    const d = onRepo();
    d.reply({ paths: ['src/app.py', 'missing.py'] });
    const r = d.read({ 'src/app.py': APP });
    expect(r.events.map((e) => e.type)).toEqual(['files_read', 'agent_call_queued']);
    expect(r.events[0].payload).toEqual({
      label: 'C1',
      files: [
        { path: 'src/app.py', bytes: APP.length, truncated: false, error: null },
        { path: 'missing.py', bytes: null, truncated: false, error: 'no such file in the workspace' },
      ],
    });
    const again = pending(d);
    expect(again.label).toBe('C1');
    expect(again.contextRefs).toContain('run1-op2');
    expect(d.prompt()).toContain(`<evidence id="src/app.py" type="file" trust="untrusted">\n${APP}\n</evidence>`);
    expect(d.prompt()).toContain('- missing.py: not read: no such file in the workspace');
    expect(again.schemaName).toBe('CritiqueOrFilesRequested'); // one request left
    expect(d.prompt()).toMatch(/1 request left/);
  });

  it('is bounded: after max_rounds requests the schema no longer offers one, and the critique is recorded as C1', () => {
    const d = onRepo({ file_requests: { max_rounds: 2 } });
    d.reply({ paths: ['src/app.py'] });
    d.read({ 'src/app.py': APP });
    d.reply({ paths: ['tests/test_app.py'] });
    d.read({ 'tests/test_app.py': 'def test_area():\n    assert True\n' });
    const last = pending(d);
    expect(last.schemaName).toBe('Critique');
    expect(d.prompt()).toContain('No file requests are left');
    expect(d.prompt()).toContain('Request 1: src/app.py');
    expect(d.prompt()).toContain('Request 2: tests/test_app.py');
    d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(d.state.critiques.map((c) => c.label)).toEqual(['C1']);
    expect(d.state.stage).toBe('IMPLEMENT');
    expect(d.calls.filter((c) => c.role === 'critic').map((c) => c.label)).toEqual(['C1', 'C1', 'C1']);
  });

  it('refuses paths over the per-request limit and says so in the next prompt', () => {
    const d = onRepo({ file_requests: { max_files: 1 } });
    const r = d.reply({ paths: ['src/app.py', 'README.md', 'tests/test_app.py'] });
    expect(r.events[1].payload).toMatchObject({ paths: ['src/app.py'], refused: ['README.md', 'tests/test_app.py'] });
    d.read({ 'src/app.py': APP });
    expect(d.prompt()).toContain('not read, over the 1-file limit per request: README.md, tests/test_app.py');
  });

  it('max_rounds 0 turns reading off', () => {
    const d = onRepo({ file_requests: { max_rounds: 0 } });
    expect(pending(d).schemaName).toBe('Critique');
  });

  it('a request with a bad path is a schema failure: the repair keeps the artifact-or-request schema', () => {
    const d = onRepo();
    const r = d.invalid('paths.0: "../x" contains \'..\'; paths must stay inside the workspace', { paths: ['../x'] });
    expect(r.commands).toHaveLength(1);
    expect(pending(d)).toMatchObject({ attempt: 2, label: 'C1', schemaName: 'CritiqueOrFilesRequested' });
  });

  it('files read after the run was cancelled ask nobody', () => {
    const d = onRepo();
    d.reply({ paths: ['src/app.py'] });
    const op = d.lastOp;
    d.step({ type: 'cancel' });
    const r = d.step({ type: 'files_read', opId: op.opId, files: [{ path: 'src/app.py', content: APP, bytes: 1, truncated: false, error: null }] });
    expect(r.commands).toEqual([]);
    expect(r.events).toEqual([]);
  });
});

describe('reading before writing: engineer and validator', () => {
  it('the engineer may read, and its implementation keeps the label I1', () => {
    const d = onRepo();
    d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1', schemaName: 'ImplementationOrFilesRequested' });
    d.reply({ paths: ['src/app.py'] });
    d.read({ 'src/app.py': APP });
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1' });
    expect(d.prompt()).toContain(APP);
    d.reply(implementationBody('P1', [{ path: 'src/app.py', content: 'def area(w, h):\n    return w * h\n' }]));
    expect(d.state.implementations.map((i) => i.label)).toEqual(['I1']);
    expect(d.lastOp.kind).toBe('workspace.apply');
  });

  it('the validator sees the tree, may read, and its review is R1', () => {
    const d = onRepo();
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    d.applied([...TREE, 'dd.py']);
    d.tests(testResult(0));
    expect(pending(d)).toMatchObject({ role: 'validator', label: 'R1', schemaName: 'ReviewOrFilesRequested' });
    expect(d.prompt()).toContain('tests/test_app.py');
    d.reply({ paths: ['tests/test_app.py'] });
    d.read({ 'tests/test_app.py': 'def test_area():\n    assert area(2, 3) == 6\n' });
    expect(d.prompt()).toContain('assert area(2, 3) == 6');
    d.reply(reviewBody('I1'));
    expect(d.state.critiques.map((c) => c.label)).toEqual(['C1', 'R1']);
    expect(d.state.stage).toBe('SYNTHESIZE');
  });

  it('each answer has its own request budget: the fix round engineer may read again', () => {
    const d = onRepo({ file_requests: { max_rounds: 1 } });
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply({ paths: ['src/app.py'] });
    d.read({ 'src/app.py': APP });
    expect(pending(d).schemaName).toBe('Implementation');
    d.reply(implementationBody('P1'));
    d.applied();
    d.tests(testResult(1));
    expect(pending(d)).toMatchObject({ label: 'I1f1', schemaName: 'ImplementationOrFilesRequested' });
  });
});

describe('engineer in agent mode', () => {
  const agentConfig = () =>
    testConfig({
      repo: '/repos/app',
      providers: { anthropic: { type: 'replay', cassette: '/c.yaml' }, xai: { type: 'replay', cassette: '/c.yaml' }, ollama: { type: 'replay', cassette: '/c.yaml' }, claude_cli: { type: 'cli', cli: 'claude' } },
      agents: {
        proposer: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        critic: { provider: 'xai', model: 'grok-4' },
        reviser: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        engineer: { provider: 'claude_cli', model: 'default', mode: 'agent' },
        validator: { provider: 'ollama', model: 'qwen3:30b-a3b' },
        synthesizer: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      },
    });

  it('is told to edit the worktree with its tools and reply with a report, not files; no file requests are offered', () => {
    const d = new BuildDriver(agentConfig()).begin(TREE);
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    const call = pending(d);
    expect(call).toMatchObject({ role: 'engineer', label: 'I1', provider: 'claude_cli', schemaName: 'Implementation' });
    const prompt = d.prompt();
    expect(prompt).toContain('`git add -A && git diff --cached` in the worktree');
    expect(prompt).not.toContain('`files`: the full content of every file');
    expect(prompt).toContain('(not needed: you read the workspace with your own tools)');
    const schema = JSON.parse(/## schema\n(.*)/.exec(prompt)![1]) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual(['assumptions', 'known_gaps', 'notes', 'proposal_id', 'test_command']);
  });

  it('answer mode (the default) asks for files as JSON', () => {
    const d = onRepo();
    d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(d.prompt()).toContain('`files`: the full content of every file you create or change');
  });
});
