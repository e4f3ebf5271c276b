import { PanelDriver, moderatorBody, panelHappyPath, revoteBody, testPanelConfig } from './panel-scenario.fixture';
import { renderPanelReport } from './panel-report';
import type { ReportAudit } from '../report';

const AUDIT: ReportAudit = { calls: 16, failedCalls: 1, inputTokens: 12_000, outputTokens: 3_400, costUsd: 0.1234, seconds: 41.6 };

function report(d: PanelDriver, audit: ReportAudit = AUDIT): string {
  return renderPanelReport({ state: d.state, decisions: d.decisions, audit });
}

describe('renderPanelReport', () => {
  it('leads with the recommendation, then each judge before → after the re-vote with the reason it moved', () => {
    const text = report(panelHappyPath());
    expect(text.split('\n')[0]).toBe('# panel-demo — panel run run1');
    expect(text).toContain('Recommendation: ITERATE (confidence 0.6)\nStatus: done (stage DONE)');
    // panelHappyPath re-votes vc 4 → 5 and customer 8 → 7; the rest keep their scores.
    expect(text).toContain('- vc (V1, anthropic/claude-sonnet-4-5): 4/10 (against) → 5 after the re-vote (+1)\n  why it moved: D1 moved me');
    expect(text).toContain('- customer (V4, ollama/qwen3:30b-a3b): 8/10 (for) → 7 after the re-vote (-1)');
    expect(text).toContain('- engineer (V2, openai/gpt-5): 7/10 (mixed) → unchanged after the re-vote');
    expect(text).toContain('10 messages in 2 rounds of 2, in fixed order');
    expect(text).toMatch(/^- D1 r1 vc: vc in round 1: my lens says something specific$/m);
  });

  it('carries the synthesis, the quality figures, warnings and the audit line', () => {
    const text = report(panelHappyPath());
    const m = moderatorBody();
    expect(text).toContain(`## Top strengths\n- ${m.top_strengths[0]}`);
    expect(text).toContain(`## Top risks\n- ${m.top_risks[0]}`);
    expect(text).toContain(`## Top problems\n- ${m.top_problems[0]}`);
    expect(text).toContain(`## Biggest disagreement\n${m.biggest_disagreement}`);
    expect(text).toContain(`## Recommended experiment\n${m.recommended_experiment}`);
    expect(text).toMatch(/## Panel quality\nStatus: ok; max Jaccard between two judges 0\.\d+/);
    expect(text).toContain('Warnings:\nNone.');
    expect(text).toContain('16 agent calls (1 failed), 15,400 tokens (in 12,000 / out 3,400), cost $0.12, 42 s');
    expect(text).toContain('`roundtable calls run1`');
  });

  it('says n/a for an unknown cost and names herding and capped moves as warnings', () => {
    const d = new PanelDriver(testPanelConfig({ max_debate_rounds: 1 }));
    d.start();
    d.roast();
    d.debateRound(1);
    // Four judges +2 together is herding; the competitor asks for +5 and is capped at +3.
    d.revote({ vc: 6, engineer: 9, pm: 8, customer: 10, competitor: 8 });
    d.reply('moderator', moderatorBody({ overall_recommendation: 'GO' }));
    const text = report(d, { ...AUDIT, costUsd: null });
    expect(text).toContain('Recommendation: GO');
    expect(text).toContain('cost n/a');
    expect(text).toMatch(/^- herding: 4 judges moved by \+2 together/m);
    expect(text).toMatch(/^- revote_capped: competitor asked for 8, capped at 6/m);
    expect(text).toContain('- competitor (V5, xai/grok-4): 3/10 (against) → 6 after the re-vote (+3), asked for 8 and capped');
  });

  it('a halted panel without a synthesis says why and does not invent strengths', () => {
    const d = new PanelDriver(testPanelConfig({ budget: { max_calls: 4 } }));
    d.start();
    d.roast();
    d.fail('moderator', 'PROVIDER_ERROR', 'HTTP 500');
    expect(d.state.status).toBe('halted');
    const text = report(d);
    expect(text).toMatch(/^Recommendation: none — no synthesis \(the partial synthesis failed/m);
    expect(text).toContain('Halt reason: max_calls reached: 4 of 4 calls used or in flight');
    expect(text).toContain('- competitor: no verdict recorded');
    expect(text).toContain('Not assessed: no synthesis was written.');
    expect(text).not.toContain('## Top strengths');
  });

  it('lists the appeal: evidence, and each appealed judge moved or unchanged', () => {
    const d = panelHappyPath();
    d.appeal(['a signed letter of intent from 30 flats'], ['vc', 'pm']);
    d.reply('vc', revoteBody('vc', 7, 5, { change_reason: 'E1: 30 flats will pay' }));
    d.reply('pm', revoteBody('pm', 6, 6));
    const text = report(d);
    expect(text).toContain('## Appeal\nEvidence (completed):\n- E1: a signed letter of intent from 30 flats');
    expect(text).toContain('- vc: 5 → 7 (+2): E1: 30 flats will pay');
    expect(text).toContain('- pm: 6 → unchanged');
  });

  it('a halted panel says how to resume it, and its audit line keeps the known cost beside the unpriced calls', () => {
    const d = new PanelDriver(testPanelConfig({ budget: { max_calls: 4 } }));
    d.start();
    d.roast();
    d.fail('moderator', 'PROVIDER_ERROR', 'HTTP 500');
    const text = report(d, { ...AUDIT, unpricedCalls: 2 });
    expect(text).toContain('Resume: `roundtable resume run1` (POST /v1/runs/run1/resume)');
    expect(text).toContain('cost $0.12 + 2 calls unpriced');
  });

  it('a failed panel offers no resume (the api refuses one: its judges would say the same again)', () => {
    const d = panelHappyPath();
    const text = renderPanelReport({ state: { ...d.state, status: 'failed', haltReason: 'panel collapsed' }, decisions: d.decisions, audit: AUDIT });
    expect(text).toContain('failed');
    expect(text).not.toContain('Resume:');
  });
});
