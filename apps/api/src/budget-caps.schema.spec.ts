import { ResumeRequest } from './resume-request.schema';

describe('a request’s caps raise the run’s own caps, never a team’s or a project’s (issue 26)', () => {
  it('names a cap across runs as the operator’s, and any other unknown cap as not a field', () => {
    const r = ResumeRequest.safeParse({ caps: { max_calls: 50, max_calls_per_day: 1000, max_usd_total: 9, max_cals: 1 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual([
      "caps.max_calls_per_day is a team's or a project's cap across runs: the operator's policy sets it (budgets in ROUNDTABLE_POLICY), never a resume request; " +
        "caps.max_usd_total is a team's or a project's cap across runs: the operator's policy sets it (budgets in ROUNDTABLE_POLICY), never a resume request; " +
        'caps.max_cals is not a field of a resume request',
    ]);
    expect(ResumeRequest.parse({ caps: { max_calls: 50 } })).toEqual({ caps: { max_calls: 50 } });
  });
});
