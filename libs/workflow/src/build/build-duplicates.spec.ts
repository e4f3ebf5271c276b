import { BuildDriver, proposalBody, testConfig } from './build-scenario.fixture';
import type { FinishedCall } from './build-types';

/** A reply delivered twice is acted on once, whatever it was (issue 13: one stale check for both workflows). */
describe('build workflow: duplicate deliveries', () => {
  it('a request for files delivered again asks for nothing more', () => {
    const d = new BuildDriver(testConfig({ repo: '/repos/app' })).begin(['src/app.py']);
    d.reply(proposalBody('P1'));
    const c = d.pendingCall!;
    const finished: FinishedCall = {
      id: c.callId, role: c.role, stage: c.stage, label: c.label, attempt: 1, provider: c.provider, model: c.model, status: 'completed',
      valid: true, parsed: { paths: ['src/app.py'] }, responseText: null, error: null, errorCode: null, schemaName: c.schemaName, messages: c.messages,
    };
    const first = d.step({ type: 'agent_call_finished', call: finished });
    expect(first.events.map((e) => e.type)).toEqual(['agent_call_completed', 'files_requested']);
    const again = d.step({ type: 'agent_call_finished', call: finished });
    expect(again.events).toEqual([]);
    expect(again.commands).toEqual([]);
    expect(d.state.fileReads).toHaveLength(1);
  });
});
