import { EntityNotFoundError, QueryFailedError } from 'typeorm';
import { WorkspaceOpRowError } from '@roundtable/contracts';
import { isInfraError, isInfraFailureReason, isPermanentJobError } from './infra-error';

describe('isInfraError', () => {
  it('knows Postgres and Redis being away, however wrapped', () => {
    expect(isInfraError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isInfraError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isInfraError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isInfraError(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
    expect(isInfraError(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isInfraError(new Error('Connection is closed.'))).toBe(true);
    const wrapped = new QueryFailedError('SELECT 1', [], Object.assign(new Error('admin shutdown'), { code: '57P01' }));
    expect(isInfraError(wrapped)).toBe(true);
    expect(isInfraError(new Error('step failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }))).toBe(true);
    expect(isInfraError(new AggregateError([Object.assign(new Error(''), { code: 'ECONNREFUSED' })]))).toBe(true);
  });

  it('does not take a job’s own failure for one', () => {
    expect(isInfraError(new Error('agent call c1 is running, not finished'))).toBe(false);
    expect(isInfraError(new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505' })))).toBe(false);
    expect(isInfraError(undefined)).toBe(false);
    expect(isInfraError('ECONNREFUSED')).toBe(false);
  });

  it('reads a failed job’s recorded reason the same way', () => {
    expect(isInfraFailureReason('connect ECONNREFUSED 127.0.0.1:5432')).toBe(true);
    expect(isInfraFailureReason('Connection terminated unexpectedly')).toBe(true);
    expect(isInfraFailureReason('bad payload for tests.run')).toBe(false);
    expect(isInfraFailureReason(undefined)).toBe(false);
  });

  it('calls a missing row permanent', () => {
    expect(isPermanentJobError(new EntityNotFoundError('RunEntity', { id: 'r1' }))).toBe(true);
    expect(isPermanentJobError(new Error('Connection terminated'))).toBe(false);
  });

  it('calls a workspace op row that is not what its kind says permanent (a done row is never written again)', () => {
    expect(isPermanentJobError(new WorkspaceOpRowError('op1', 'tests', 'result.passed', 'expected number'))).toBe(true);
  });
});
