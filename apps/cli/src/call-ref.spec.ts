import { resolveCallRef } from './call-ref';
import { UsageError } from './cli-args';

describe('resolveCallRef', () => {
  it('reads the run id off a call id (<run id>-c<n>)', () => {
    expect(resolveCallRef('run_ab12cd-c3')).toEqual({ runId: 'run_ab12cd', callId: 'run_ab12cd-c3' });
    expect(resolveCallRef('run_x-c12')).toEqual({ runId: 'run_x', callId: 'run_x-c12' });
  });

  it('accepts <run>/<call> and --run', () => {
    expect(resolveCallRef('run_a/other-id')).toEqual({ runId: 'run_a', callId: 'other-id' });
    expect(resolveCallRef('weird', 'run_b')).toEqual({ runId: 'run_b', callId: 'weird' });
    expect(resolveCallRef('run_a/run_a-c1', 'run_a')).toEqual({ runId: 'run_a', callId: 'run_a-c1' });
  });

  it('refuses what it cannot place, and a contradiction', () => {
    expect(() => resolveCallRef('weird')).toThrow(new UsageError('cannot tell which run weird belongs to: give it as <run>/<call> or add --run <run>'));
    expect(() => resolveCallRef('run_a/c1', 'run_b')).toThrow('run_a/c1 names run run_a but --run says run_b');
    expect(() => resolveCallRef('/c1')).toThrow(UsageError);
    expect(() => resolveCallRef('a/b/c')).toThrow(UsageError);
  });
});
