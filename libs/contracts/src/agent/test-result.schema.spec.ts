import { TestResult } from './test-result.schema';

const result = { command: 'python -m pytest -q', exit_code: 1, passed: 4, failed: 1, errors: 0, duration_s: 0.42, stdout_tail: '1 failed' };

describe('TestResult', () => {
  it('defaults timed_out to false', () => {
    expect(TestResult.parse(result).timed_out).toBe(false);
  });

  it.each([
    ['passed', -1],
    ['failed', 1.5],
    ['exit_code', 0.5],
    ['duration_s', -0.1],
  ])('rejects %s = %p', (field, value) => {
    const r = TestResult.safeParse({ ...result, [field]: value });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual([field]);
  });

  it('accepts a negative exit code (killed by a signal)', () => {
    expect(TestResult.parse({ ...result, exit_code: -9, timed_out: true }).exit_code).toBe(-9);
  });
});
