import { parseWorkspaceOp, readOpFiles, workspaceOpRequest, workspaceOpResult, WorkspaceOpRowError } from './workspace-op.schema';

const readRequest = { label: 'C1', role: 'critic', call_id: 'r-c2', paths: ['a.py', 'b.py'], reason: null, refused: [], max_bytes_per_file: 256 };
const testsRequest = { command: 'pytest -q', timeoutS: 60, testLabel: 'T1' };
const testsResult = {
  ...testsRequest,
  exit_code: 0,
  passed: 3,
  failed: 0,
  errors: 0,
  duration_s: 1.5,
  timed_out: false,
  oom_killed: false,
  output_artifact_id: 'op-out',
  output_tail: '3 passed',
  runner: 'docker',
};
const commit = {
  workspace_source: 'worktree',
  branch: 'roundtable/r',
  base_commit: 'b0',
  commit: 'c1',
  committed: true,
  diffstat: [{ path: 'a.py', added: 1, deleted: 0 }],
  round_diffstat: [{ path: 'a.py', added: 1, deleted: null }],
  diff_artifact_id: 'op-diff',
  diff_truncated: false,
};

describe('workspace_ops rows, typed', () => {
  it('parses a queued row as its request and a done row as its result, by kind', () => {
    expect(parseWorkspaceOp({ id: 'op1', kind: 'tests', status: 'queued', result: testsRequest })).toEqual({ id: 'op1', kind: 'tests', status: 'queued', error: null, request: testsRequest });
    expect(parseWorkspaceOp({ id: 'op1', kind: 'tests', status: 'done', result: testsResult })).toMatchObject({ status: 'done', result: testsResult });
    expect(parseWorkspaceOp({ id: 'op2', kind: 'prepare', status: 'queued', result: null })).toMatchObject({ request: null });
    expect(parseWorkspaceOp({ id: 'op2', kind: 'prepare', status: 'done', result: { path: '/w', tree: ['a.py'] } })).toMatchObject({ result: { path: '/w', tree: ['a.py'] } });
    const apply = { written: ['a.py'], tree: ['a.py'], artifact_ids: ['op-f1'], ...commit };
    expect(parseWorkspaceOp({ id: 'op3', kind: 'apply', status: 'done', result: apply })).toMatchObject({ result: apply });
    expect(parseWorkspaceOp({ id: 'op3', kind: 'apply', status: 'done', result: { written: [], tree: [], artifact_ids: [] } })).toMatchObject({ status: 'done' });
  });

  it('names the op and the field when a row is not what its kind says', () => {
    expect(() => parseWorkspaceOp({ id: 'op9', kind: 'tests', status: 'done', result: { ...testsResult, passed: 'many' } })).toThrow(
      new WorkspaceOpRowError('op9', 'tests', 'result.passed', 'Invalid input: expected number, received string'),
    );
    expect(() => parseWorkspaceOp({ id: 'op9', kind: 'tests', status: 'queued', result: {} })).toThrow(/^workspace op op9 \(tests\): result\.command: /);
    expect(() => parseWorkspaceOp({ id: 'op8', kind: 'read', status: 'queued', result: { paths: ['a'] } })).toThrow(/^workspace op op8 \(read\): result\.label: /);
    expect(() => parseWorkspaceOp({ id: 'op7', kind: 'prepare', status: 'done', result: null })).toThrow(/^workspace op op7 \(prepare\): result: /);
    expect(() => parseWorkspaceOp({ id: 'op6', kind: 'bake', status: 'done', result: {} })).toThrow(/^workspace op op6 \(bake\): kind: not one of prepare, apply, tests, read/);
    expect(() => parseWorkspaceOp({ id: 'op5', kind: 'read', status: 'running', result: readRequest })).toThrow(/status: "running" is not queued, done or failed/);
  });

  it('refuses a half-recorded commit on an apply result', () => {
    const { diff_artifact_id: _drop, ...half } = commit;
    expect(() => workspaceOpResult('apply', 'op3', { written: [], tree: [], artifact_ids: [], ...half })).toThrow(
      /^workspace op op3 \(apply\): result\.diff_artifact_id: a committed round records all of diff_artifact_id too/,
    );
  });

  it('drops keys the schema does not know from what the test-runner writes, and keeps the request beside the result', () => {
    expect(workspaceOpResult('tests', 'op1', { ...testsResult, stray: 1 })).toEqual(testsResult);
    expect(workspaceOpResult('read', 'op2', { ...readRequest, files: [] })).toEqual({ ...readRequest, files: [] });
    expect(workspaceOpRequest('tests', { id: 'op1', result: testsRequest })).toEqual(testsRequest);
    expect(() => workspaceOpRequest('tests', { id: 'op1', result: { command: '', timeoutS: 0 } })).toThrow(/result\.command/);
  });

  it('answers the files of a read op: null while queued, every path with the reason when it failed', () => {
    expect(readOpFiles(parseWorkspaceOp({ id: 'r', kind: 'read', status: 'queued', result: readRequest }) as never)).toBeNull();
    const files = [{ path: 'a.py', content: 'x', bytes: 1, truncated: false, error: null }];
    expect(readOpFiles(parseWorkspaceOp({ id: 'r', kind: 'read', status: 'done', result: { ...readRequest, files } }) as never)).toEqual(files);
    expect(readOpFiles(parseWorkspaceOp({ id: 'r', kind: 'read', status: 'failed', error: 'no workspace', result: readRequest }) as never)).toEqual([
      { path: 'a.py', content: null, bytes: null, truncated: false, error: 'no workspace' },
      { path: 'b.py', content: null, bytes: null, truncated: false, error: 'no workspace' },
    ]);
  });

  describe('experiment ops', () => {
    const request = {
      experiment_id: 'exp1',
      prereg_hash: 'a'.repeat(64),
      repo: '/repos/bt',
      commit: 'abc1234',
      command: 'python3 backtest.py prices.csv',
      metrics: ['sharpe_oos', 'n_trades'],
      timeout_s: 120,
    };
    const result = {
      experiment_id: 'exp1',
      prereg_hash: 'a'.repeat(64),
      commit: 'abc1234',
      command: request.command,
      exit_code: 0,
      duration_s: 2.5,
      timed_out: false,
      oom_killed: false,
      metrics: { sharpe_oos: 1.2, n_trades: 14 },
      metrics_error: null,
      metrics_source: 'file',
      output_artifact_id: 'op-out',
      output_tail: '{"sharpe_oos": 1.2}',
      runner: 'docker',
    };

    it('parses a queued experiment op as its request and a done one as its result', () => {
      expect(parseWorkspaceOp({ id: 'e1', kind: 'experiment', status: 'queued', result: request })).toEqual({ id: 'e1', kind: 'experiment', status: 'queued', error: null, request });
      expect(parseWorkspaceOp({ id: 'e1', kind: 'experiment', status: 'done', result })).toMatchObject({ status: 'done', result });
      const failed = { ...result, metrics: null, metrics_error: 'missing metrics: n_trades', metrics_source: null };
      expect(workspaceOpResult('experiment', 'e1', failed)).toEqual(failed);
    });

    it('refuses a hash that is not sha256 hex, a commit that is not hex, and a metric that is not a number', () => {
      expect(() => workspaceOpRequest('experiment', { id: 'e2', result: { ...request, prereg_hash: 'abc' } })).toThrow(/^workspace op e2 \(experiment\): result\.prereg_hash: a sha256 hex digest/);
      expect(() => workspaceOpRequest('experiment', { id: 'e2', result: { ...request, commit: 'main' } })).toThrow(/result\.commit: a commit id/);
      expect(() => workspaceOpRequest('experiment', { id: 'e2', result: { ...request, commit: 'a'.repeat(41) } })).toThrow(/result\.commit/);
      expect(() => workspaceOpResult('experiment', 'e3', { ...result, metrics: { sharpe_oos: 'high' } })).toThrow(/result\.metrics\.sharpe_oos/);
      expect(() => workspaceOpResult('experiment', 'e3', { ...result, metrics_source: 'guess' })).toThrow(/result\.metrics_source/);
    });
  });
});
