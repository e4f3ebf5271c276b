import { ownedPathOf } from './team-door.middleware';

describe('ownedPathOf: which team-owned row a path names, as the router reads it', () => {
  it.each([
    ['/v1/runs/run_abc', { kind: 'run', id: 'run_abc' }],
    ['/v1/runs/run_abc/', { kind: 'run', id: 'run_abc' }],
    ['/v1/runs/run_abc/events', { kind: 'run', id: 'run_abc' }],
    // A route added under a run later (verify, export) is behind the door without a change here.
    ['/v1/runs/run_abc/verify', { kind: 'run', id: 'run_abc' }],
    ['/v1/runs/run_abc/calls/7/playground', { kind: 'run', id: 'run_abc' }],
    // The router matches the mount in any case, and keeps the id's own case.
    ['/V1/RUNS/Run_ABC/Report', { kind: 'run', id: 'Run_ABC' }],
    // Express decodes :id before the service reads it, so the door reads the same id.
    ['/v1/ideas/idea%5F1/versions/2', { kind: 'idea', id: 'idea_1' }],
    ['/v1/experiments/exp_1/run', { kind: 'experiment', id: 'exp_1' }],
    ['/v1/Evals/eval_1/plot.svg', { kind: 'eval', id: 'eval_1' }],
    // Not decodable: answered as a missing row, never let through.
    ['/v1/runs/%E0%A4%A/events', { kind: 'run', id: '%E0%A4%A' }],
  ])('%s → %j', (path, owned) => {
    expect(ownedPathOf(path)).toEqual(owned);
  });

  it.each(['/v1/runs', '/v1/runs/', '/v1/runsx/run_1', '/v1/me', '/healthz', '/v1/audit/bias', '/v1/runs//events', '/admin/queues/run_1'])('%s names no row', (path) => {
    expect(ownedPathOf(path)).toBeNull();
  });
});
