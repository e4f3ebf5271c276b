import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { Idea, JUDGES, JudgeRole, PanelProjectConfig } from '@roundtable/contracts';
import { assessPanel, assessRevote, LENS_COLLAPSE_JACCARD, REVOTE_CAP } from '../verification/panel-quality';
import { checkPanelTemplates, currentScores, currentVerdicts } from './panel-context-packs';
import { PanelDriver, replayCassette, type ReplayOptions } from './panel-scenario.fixture';
import type { PanelPromptTemplates, PanelTemplateName } from './panel-types';
import { canAppeal } from './panel.workflow';

/**
 * The golden set (seed 003 "tier 1"): every idea under test/fixtures/panel-golden is a replay
 * cassette driven through decidePanel() with the real prompt templates, and its structural
 * checks must all pass: five verdicts, 5 × rounds debate messages, differentiated lenses,
 * re-vote quality, appeal discrimination, and the outcome the fixture says it expects. This is
 * the one workflow test that reads files.
 */

const ROOT = path.resolve(__dirname, '../../../..');
const DIR = path.join(ROOT, 'test/fixtures/panel-golden');

const Reply = z
  .object({ role: z.enum([...JUDGES, 'moderator']), reply: z.record(z.string(), z.unknown()), expects: z.array(z.string()).optional(), forbids: z.array(z.string()).optional() })
  .strict();

const Fixture = z
  .object({
    idea: Idea,
    config: z.object({ max_debate_rounds: z.number().int().min(0), revote: z.boolean() }).strict(),
    expect: z
      .object({
        status: z.enum(['done', 'failed']),
        recommendation: z.enum(['GO', 'ITERATE', 'NO-GO']).optional(),
        quality: z.enum(['ok', 'weak', 'uniform', 'collapsed']),
        retries: z.number().int().min(0),
        debate_messages: z.number().int().min(0),
        herding: z.boolean().optional(),
        capped: z.array(JudgeRole).optional(),
        low_confidence: z.boolean().optional(),
        collapsed_pair: z.tuple([JudgeRole, JudgeRole]).optional(),
      })
      .strict(),
    appeal: z.object({ evidence: z.array(z.string()).min(1), judges: z.array(JudgeRole).min(1), moves: z.array(JudgeRole) }).strict().optional(),
    replies: z.array(Reply).min(1),
  })
  .strict();
type Fixture = z.infer<typeof Fixture>;

function loadTemplates(): PanelPromptTemplates {
  const read = (rel: string) => readFileSync(path.join(ROOT, 'prompts', rel), 'utf8');
  const names: Exclude<PanelTemplateName, 'preamble'>[] = [...JUDGES, 'debate', 'revote', 'moderator', 'appeal'];
  return { preamble: read('preamble.md'), ...Object.fromEntries(names.map((n) => [n, read(`panel/${n}.md`)])) } as PanelPromptTemplates;
}

const templates = loadTemplates();
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();
const fixtures: [string, string, Fixture][] = files.map((f) => {
  const file = path.join(DIR, f);
  return [f.replace(/\.yaml$/, ''), file, Fixture.parse(parse(readFileSync(file, 'utf8')))];
});

function drive(name: string, file: string, f: Fixture, opts: ReplayOptions) {
  const agent = (model: string) => ({ provider: 'replay', model });
  const config = PanelProjectConfig.parse({
    workflow: 'panel',
    project: name,
    idea: f.idea,
    ...f.config,
    judges: Object.fromEntries(JUDGES.map((j) => [j, agent(`golden-${j}`)])),
    moderator: agent('golden-moderator'),
    providers: { replay: { type: 'replay', cassette: file } },
  });
  const d = new PanelDriver(config, templates, `golden-${name}`);
  d.start();
  const used = replayCassette(d, f.replies, {}, opts);
  return { d, used };
}

/** What must not depend on the order parallel replies land in. */
function summary(d: PanelDriver) {
  return {
    status: d.state.status,
    path: d.path,
    scores: currentScores(d.state),
    recommendation: d.state.moderator?.body?.overall_recommendation ?? null,
    turns: d.state.turns.map((t) => `${t.label}:${t.speaker}:${t.round}`),
    warnings: d.state.warnings.map((w) => w.kind),
    quality: d.state.quality?.status ?? null,
  };
}

describe('the panel golden set', () => {
  it('holds at least six ideas, covering every outcome the gates can reach', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(6);
    const expects = fixtures.map(([, , f]) => f.expect);
    expect(expects.some((e) => e.retries === 1 && e.status === 'done')).toBe(true); // weak, recovers after one retry
    expect(expects.some((e) => e.quality === 'collapsed' && e.status === 'failed')).toBe(true);
    expect(expects.some((e) => e.quality === 'uniform' && e.low_confidence)).toBe(true);
    expect(expects.some((e) => e.herding)).toBe(true);
    expect(expects.some((e) => e.capped?.length)).toBe(true);
    const appeals = fixtures.flatMap(([, , f]) => (f.appeal ? [f.appeal] : []));
    expect(appeals.some((a) => a.moves.length > 0)).toBe(true); // relevant evidence moves a judge
    expect(appeals.some((a) => a.judges.some((j) => !a.moves.includes(j)))).toBe(true); // irrelevant evidence does not
  });

  it('runs on the real prompt templates, which use only placeholders their packs fill', () => {
    expect(checkPanelTemplates(templates)).toEqual([]);
  });
});

describe.each(fixtures)('golden idea %s', (name, file, f) => {
  // Driven inside each test, not at collection time: a mutation run then knows which test covers what.
  let d: PanelDriver;
  let used: Record<string, number>;
  beforeEach(() => {
    ({ d, used } = drive(name, file, f, { order: 'fifo' }));
  });
  const e = f.expect;

  it('replays without a guard failure, an exhausted role or a schema failure', () => {
    expect(d.eventsOf('agent_call_failed')).toEqual([]);
    expect(d.eventsOf('agent_call_completed').filter((c) => !c.valid)).toEqual([]);
    expect(d.inFlight).toEqual([]);
  });

  it(`ends ${e.status} with quality ${e.quality} after ${e.retries} retr${e.retries === 1 ? 'y' : 'ies'}`, () => {
    expect(d.state.status).toBe(e.status);
    expect(d.state.quality?.status).toBe(e.quality);
    expect(d.state.roastRetries).toBe(e.retries);
    expect(d.eventsOf('panel_retry')).toHaveLength(e.retries);
  });

  it('is the same whatever order the parallel replies land in', () => {
    expect(summary(drive(name, file, f, { order: 'lifo' }).d)).toEqual(summary(d));
  });

  if (e.status === 'failed') {
    it('fails with the measured figures: the collapsed pair, max Jaccard, no debate, no moderator', () => {
      const q = d.eventsOf('roast_panel_completed').at(-1)!.quality!;
      expect(q.status).toBe('collapsed');
      expect(q.figures.max_jaccard).toBeGreaterThanOrEqual(LENS_COLLAPSE_JACCARD);
      const [a, b] = e.collapsed_pair!;
      expect(q.figures.pairs.find((p) => p.a === a && p.b === b)?.jaccard).toBeGreaterThanOrEqual(LENS_COLLAPSE_JACCARD);
      expect(d.eventsOf('run_failed')[0].reason).toContain(`max Jaccard ${q.figures.max_jaccard}`);
      expect(d.calls.some((c) => c.role === 'moderator' || c.schemaName === 'DebateTurn')).toBe(false);
      expect(d.eventsOf('debate_message_published')).toHaveLength(e.debate_messages);
    });
    return;
  }

  it('has five verdicts, one per judge, each announced with completed/total', () => {
    const verdicts = currentVerdicts(d.state);
    expect(verdicts.map((v) => v.judge)).toEqual([...JUDGES]);
    expect(d.eventsOf('judge_verdict_completed').filter((x) => x.completed === x.total)).toHaveLength(1 + e.retries);
  });

  it('has 5 × rounds debate messages in the fixed speaker order', () => {
    const messages = d.eventsOf('debate_message_published');
    expect(messages).toHaveLength(5 * f.config.max_debate_rounds);
    expect(messages).toHaveLength(e.debate_messages);
    expect(messages.map((m) => m.speaker)).toEqual(Array.from({ length: f.config.max_debate_rounds }, () => JUDGES).flat());
  });

  it('has differentiated lenses', () => {
    const q = assessPanel(currentVerdicts(d.state).map((v) => v.body));
    expect(q.status).toBe(e.quality);
    expect(q.figures.max_jaccard).toBeLessThan(LENS_COLLAPSE_JACCARD);
  });

  it('has a clean re-vote: no unexplained move, every move within ±3, herding and caps as the fixture intends', () => {
    const revotes = d.state.revotes.filter((r) => r.phase === 'revote');
    if (!f.config.revote) {
      expect(revotes).toEqual([]);
      expect(d.eventsOf('revote_started')).toEqual([]);
      return;
    }
    expect(revotes).toHaveLength(5);
    const a = assessRevote(d.state.revoteBaseline!, revotes.map((r) => r.body));
    expect(a.unexplained).toEqual([]);
    expect(a.herding).toBe(e.herding);
    expect(a.capped).toEqual(e.capped);
    for (const r of revotes) expect(Math.abs(r.score - r.previous)).toBeLessThanOrEqual(REVOTE_CAP);
    expect(d.eventsOf('panel_warning').some((w) => w.kind === 'herding')).toBe(e.herding);
  });

  it(`closes with ${e.recommendation} on run_completed, with the quality figures`, () => {
    const done = d.eventsOf('run_completed');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ status: 'done', verdict: e.recommendation });
    expect(done[0].panel).toMatchObject({ recommendation: e.recommendation, partial: false, low_confidence: e.low_confidence, quality: d.state.quality });
    expect(d.eventsOf('run_metrics')).toHaveLength(1);
  });

  if (!f.appeal) {
    it('uses every reply in its cassette', () => {
      for (const role of [...JUDGES, 'moderator']) expect(used[role] ?? 0).toBe(f.replies.filter((r) => r.role === role).length);
    });
    return;
  }

  it('appeal: only the selected judges re-score, relevant evidence moves them and irrelevant evidence does not, once', () => {
    const appeal = f.appeal!;
    const before = currentScores(d.state);
    const r = d.appeal(appeal.evidence, appeal.judges);
    expect(r.commands.map((c) => c.role)).toEqual(JUDGES.filter((j) => appeal.judges.includes(j)));
    expect(r.commands.every((c) => c.stage === 'APPEAL')).toBe(true);
    replayCassette(d, f.replies, used);
    for (const role of [...JUDGES, 'moderator']) expect(used[role] ?? 0).toBe(f.replies.filter((x) => x.role === role).length);

    const completed = d.eventsOf('appeal_completed');
    expect(completed).toHaveLength(1);
    const after = currentScores(d.state);
    for (const j of JUDGES) {
      if (!appeal.judges.includes(j)) {
        expect(after[j]).toBe(before[j]);
        continue;
      }
      expect(completed[0].scores[j]).toBe(after[j]);
      expect(Math.abs(after[j]! - before[j]!)).toBeLessThanOrEqual(REVOTE_CAP);
      expect(after[j] !== before[j]).toBe(appeal.moves.includes(j));
    }
    expect(d.state.status).toBe('done');
    expect(canAppeal(d.state).ok).toBe(false);
    expect(d.appeal(appeal.evidence, appeal.judges).commands).toEqual([]);
  });
});
