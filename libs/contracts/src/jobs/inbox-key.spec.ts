import { inboxKey } from './inbox-key';

describe('inboxKey', () => {
  it('is one key per finished call or op, however often its job comes', () => {
    expect(inboxKey('agent.done', { callId: 'run1-c7' }, 'j__a')).toBe('agent.done:run1-c7');
    expect(inboxKey('agent.done', { callId: 'run1-c7' }, 'j__b')).toBe('agent.done:run1-c7');
    expect(inboxKey('workspace.done', { opId: 'op3' })).toBe('workspace.done:op3');
    expect(inboxKey('tests.done', { opId: 'op3' })).toBe('tests.done:op3');
  });

  it('is one key per request for a resume or an appeal (each job id its own event)', () => {
    expect(inboxKey('run.resume', {}, 'j__r1__resume__2')).toBe('run.resume:j__r1__resume__2');
    expect(inboxKey('run.appeal', {}, 'j__r1__appeal')).not.toBe(inboxKey('run.appeal', {}, 'j__r1__appeal__2'));
    expect(inboxKey('run.resume', {})).toBe('run.resume:once');
  });

  it('is the job name for what happens once per run', () => {
    expect(inboxKey('run.start', {}, 'j__x')).toBe('run.start');
    expect(inboxKey('run.cancel', {}, 'j__y')).toBe('run.cancel');
  });
});
