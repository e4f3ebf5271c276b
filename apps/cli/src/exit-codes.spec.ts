import { RunStatus, TERMINAL_EVENT_TYPES } from '@roundtable/contracts';
import { EXIT, exitCodeForStatus } from './exit-codes';
import { TERMINAL_EVENTS } from './follow-run';

describe('exit codes', () => {
  it('tell done, halted/needs_input, cancelled and failed apart', () => {
    expect(exitCodeForStatus('done')).toBe(0);
    expect(exitCodeForStatus('halted')).toBe(2);
    expect(exitCodeForStatus('needs_input')).toBe(2);
    expect(exitCodeForStatus('cancelled')).toBe(3);
    expect(exitCodeForStatus('failed')).toBe(1);
    expect(exitCodeForStatus('running')).toBe(EXIT.ERROR);
    expect(exitCodeForStatus(null)).toBe(EXIT.ERROR);
  });

  it('cover every run status the contracts define', () => {
    for (const s of RunStatus.options) expect(Object.values(EXIT)).toContain(exitCodeForStatus(s));
  });

  it("the CLI's terminal event types are the contracts' (restated only to keep zod out of start-up)", () => {
    expect([...TERMINAL_EVENTS].sort()).toEqual([...TERMINAL_EVENT_TYPES].sort());
  });
});
