import { AGENT_SCHEMAS, JUDGES, RUN_EVENT_PAYLOADS, RunEventEnvelope, TERMINAL_EVENT_TYPES, type NewRunEvent } from '@roundtable/contracts';
import { z } from 'zod';
import { checkPanelTemplates, currentVerdicts } from './panel-context-packs';
import { appealGolden, driveGolden, GOLDEN_SET_SIZE, goldenSet, summary, templates } from './panel-golden.fixture';

/**
 * Golden set, tier 0 (seed 003: "free structural CI on every PR"): for each of the twelve golden
 * ideas, replayed through decidePanel(), the structure is right whatever the judges said — every
 * reply validates against its schema, every event payload against the catalogue in an order the
 * panel allows with gap-free sequences, the panel is complete (five verdicts, a moderator
 * synthesis) and the debate holds 5 × rounds messages in the fixed speaker order. How good the
 * panel is (lenses, re-votes, herding, appeals) is tier 1 (panel-golden-tier1.spec.ts).
 */

/**
 * The panel's phases in the order its events may come: a later phase's event never precedes an
 * earlier one's. Call facts, stage changes and warnings come with every phase and are not ranked.
 */
const PHASE_OF: Partial<Record<NewRunEvent['type'], number>> = {
  run_started: 0,
  judges_dispatched: 1,
  judge_verdict_completed: 1,
  panel_retry: 1,
  roast_panel_completed: 1,
  debate_message_published: 2,
  revote_started: 3,
  revote_judge_completed: 3,
  moderator_completed: 4,
  run_metrics: 5,
  run_completed: 6,
  run_failed: 6,
  appeal_started: 7,
  appeal_completed: 8,
};
const UNRANKED = new Set(['agent_call_queued', 'agent_call_completed', 'agent_call_failed', 'stage_changed', 'panel_warning']);

/** The log as the orchestrator stores it: envelopes numbered 1, 2, 3 … in the order decided. */
function envelopes(runId: string, events: readonly NewRunEvent[]): RunEventEnvelope[] {
  return events.map((e, i) => ({ type: e.type, run_id: runId, sequence: i + 1, payload: e.payload as Record<string, unknown>, created_at: '2026-12-04T22:00:00.000Z' }));
}

/** Every way the log breaks the panel's order; empty when it holds. */
function orderProblems(log: readonly RunEventEnvelope[]): string[] {
  const problems: string[] = [];
  let phase = -1;
  const queued = new Set<string>();
  let terminal: number | null = null;
  log.forEach((e, i) => {
    if (e.sequence !== i + 1) problems.push(`#${i + 1}: sequence ${e.sequence} (a gap or a repeat)`);
    const rank = PHASE_OF[e.type as NewRunEvent['type']];
    if (rank === undefined && !UNRANKED.has(e.type)) problems.push(`#${e.sequence}: ${e.type} is no panel event`);
    if (rank !== undefined) {
      if (rank < phase) problems.push(`#${e.sequence}: ${e.type} after a later phase's event`);
      phase = Math.max(phase, rank);
    }
    const id = (e.payload as { call_id?: string }).call_id;
    if (e.type === 'agent_call_queued' && id) queued.add(id);
    if ((e.type === 'agent_call_completed' || e.type === 'agent_call_failed') && id && !queued.has(id)) problems.push(`#${e.sequence}: ${e.type} of ${id}, never queued`);
    if (TERMINAL_EVENT_TYPES.includes(e.type as NewRunEvent['type'])) {
      if (terminal !== null) problems.push(`#${e.sequence}: a second terminal event (${e.type})`);
      terminal = e.sequence;
    } else if (terminal !== null && !['appeal_started', 'appeal_completed', 'agent_call_queued', 'agent_call_completed'].includes(e.type)) {
      problems.push(`#${e.sequence}: ${e.type} after the terminal event (only an appeal may follow)`);
    }
  });
  if (terminal === null) problems.push('no terminal event');
  return problems;
}

describe('golden set, tier 0: the set itself', () => {
  it(`holds ${GOLDEN_SET_SIZE} ideas covering every outcome the gates can reach`, () => {
    expect(goldenSet.map((g) => g.name)).toHaveLength(GOLDEN_SET_SIZE);
    const expects = goldenSet.map((g) => g.idea.expect);
    for (const r of ['GO', 'ITERATE', 'NO-GO'] as const) expect(expects.some((e) => e.recommendation === r)).toBe(true);
    expect(expects.some((e) => e.retries === 1 && e.status === 'done')).toBe(true); // weak, recovers after one retry
    expect(expects.some((e) => e.quality === 'collapsed' && e.status === 'failed')).toBe(true);
    expect(expects.some((e) => e.quality === 'uniform' && e.low_confidence)).toBe(true);
    expect(expects.some((e) => e.herding)).toBe(true);
    expect(expects.some((e) => e.capped?.length)).toBe(true);
    const appeals = goldenSet.flatMap((g) => (g.idea.appeal ? [g.idea.appeal] : []));
    expect(appeals.some((a) => a.moves.length > 0)).toBe(true); // relevant evidence moves a judge
    expect(appeals.some((a) => a.judges.some((j) => !a.moves.includes(j)))).toBe(true); // irrelevant evidence does not
  });

  it('runs on the real prompt templates, which use only placeholders their packs fill', () => {
    expect(checkPanelTemplates(templates)).toEqual([]);
  });
});

describe.each(goldenSet.map((g) => [g.name, g] as const))('golden idea %s, tier 0', (_name, g) => {
  const f = g.idea;
  const e = f.expect;

  it('every reply in its cassette validates against the schema of the call it answers', () => {
    const { d, used: consumed } = driveGolden(g);
    if (f.appeal) appealGolden(g, d, consumed);
    const replies = d.eventsOf('agent_call_completed');
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.filter((c) => !c.valid)).toEqual([]);
    expect(d.eventsOf('agent_call_failed')).toEqual([]);
    // and again by hand: each call's schema against the cassette entry the role used for it
    const used: Record<string, number> = {};
    for (const call of d.calls) {
      const ordinal = used[call.role] ?? 0;
      used[call.role] = ordinal + 1;
      const entry = f.replies.filter((r) => r.role === call.role)[ordinal];
      expect({ call: call.callId, ok: entry !== undefined && AGENT_SCHEMAS[call.schemaName].safeParse(entry.reply).success }).toEqual({ call: call.callId, ok: true });
    }
  });

  it('uses every reply in its cassette, no more (the appeal included)', () => {
    const { d, used } = driveGolden(g);
    if (f.appeal) appealGolden(g, d, used);
    expect(d.inFlight).toEqual([]);
    for (const role of [...JUDGES, 'moderator']) expect({ role, used: used[role] ?? 0 }).toEqual({ role, used: f.replies.filter((r) => r.role === role).length });
  });

  it('every event payload matches its catalogue schema, in an order the panel allows, with gap-free sequences', () => {
    const { d, used } = driveGolden(g);
    if (f.appeal) appealGolden(g, d, used);
    const log = envelopes(`golden-${g.name}`, d.events);
    for (const env of log) {
      RunEventEnvelope.parse(env);
      expect((RUN_EVENT_PAYLOADS[env.type as NewRunEvent['type']] as unknown as z.ZodObject).strict().safeParse(env.payload).success).toBe(true);
    }
    expect(orderProblems(log)).toEqual([]);
    expect(log[0].type).toBe('run_started');
    expect(log.filter((x) => TERMINAL_EVENT_TYPES.includes(x.type as NewRunEvent['type'])).map((x) => x.type)).toEqual([e.status === 'done' ? 'run_completed' : 'run_failed']);
  });

  it('the order check itself refuses a swapped, a gapped and a doubly-ended log', () => {
    const { d } = driveGolden(g);
    const log = envelopes('x', d.events);
    const dispatched = log.findIndex((x) => x.type === 'judges_dispatched');
    const swapped = [...log];
    [swapped[0], swapped[dispatched]] = [swapped[dispatched], swapped[0]];
    expect(orderProblems(swapped.map((x, i) => ({ ...x, sequence: i + 1 })))).not.toEqual([]);
    expect(orderProblems(log.filter((_, i) => i !== 3))).toContainEqual(expect.stringContaining('a gap or a repeat'));
    expect(orderProblems([...log, { ...log[log.length - 1], sequence: log.length + 1 }])).toContainEqual(expect.stringContaining('a second terminal event'));
  });

  it('is the same whatever order the parallel replies land in', () => {
    expect(summary(driveGolden(g, { order: 'lifo' }).d)).toEqual(summary(driveGolden(g).d));
  });

  if (e.status === 'failed') {
    it('a collapsed panel stops after the roast: five verdicts, no debate message, no moderator', () => {
      const { d } = driveGolden(g);
      expect(currentVerdicts(d.state).map((v) => v.judge)).toEqual([...JUDGES]);
      expect(d.eventsOf('debate_message_published')).toHaveLength(0);
      expect(e.debate_messages).toBe(0);
      expect(d.calls.some((c) => c.role === 'moderator' || c.schemaName === 'DebateTurn')).toBe(false);
    });
    return;
  }

  it('the panel is complete: five verdicts, one per judge, announced with completed/total, and the moderator synthesis', () => {
    const { d } = driveGolden(g);
    expect(currentVerdicts(d.state).map((v) => v.judge)).toEqual([...JUDGES]);
    expect(d.eventsOf('judge_verdict_completed').filter((x) => x.completed === x.total)).toHaveLength(1 + e.retries);
    const synthesis = d.eventsOf('moderator_completed');
    expect(synthesis).toHaveLength(1);
    expect(AGENT_SCHEMAS.ModeratorSynthesis.safeParse(d.state.moderator?.body).success).toBe(true);
    expect(d.eventsOf('run_completed')[0].panel).toMatchObject({ partial: false });
  });

  it(`has 5 × ${f.config.max_debate_rounds} debate messages in the fixed speaker order`, () => {
    const { d } = driveGolden(g);
    const messages = d.eventsOf('debate_message_published');
    expect(messages).toHaveLength(5 * f.config.max_debate_rounds);
    expect(messages).toHaveLength(e.debate_messages);
    expect(messages.map((m) => m.speaker)).toEqual(Array.from({ length: f.config.max_debate_rounds }, () => JUDGES).flat());
    expect(messages.map((m) => m.round)).toEqual(Array.from({ length: f.config.max_debate_rounds }, (_, r) => JUDGES.map(() => r + 1)).flat());
  });

  it(f.config.revote ? 'has five re-votes, one per judge' : 'has no re-vote (switched off)', () => {
    const { d } = driveGolden(g);
    expect(d.eventsOf('revote_judge_completed').map((r) => r.judge).sort()).toEqual(f.config.revote ? [...JUDGES].sort() : []);
  });
});
