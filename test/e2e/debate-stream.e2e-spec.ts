import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { JUDGES, TERMINAL_EVENT_TYPES, type RunEventEnvelope } from '@roundtable/contracts';
import { emptyRunView, foldRunEvent } from '@roundtable/run-view';
import {
  FakeLlmServer,
  launchBrowser,
  loadFakeScript,
  Pipeline,
  projectConfigFrom,
  saveScreenshot,
  startFakeLlmServer,
  startPipeline,
  submitRun,
  waitForTerminal,
} from '@roundtable/testing';
import { EventSourceFollower } from './support/event-source-follower';
import { eventually, expectCount, expectText } from './support/workbench-expect';
import { workbench as wb } from './support/workbench-pages';

jest.setTimeout(150_000);

const REPO = path.resolve(__dirname, '../..');
const WEB_ROOT = path.join(REPO, 'dist/apps/web');
const DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const CASSETTE = path.join(REPO, 'examples/panel-demo/cassette.yaml');
const KEYS = { E2E_ANTHROPIC_KEY: 'sk-ant-e2e-0123456789', E2E_OPENAI_KEY: 'sk-e2e-openai-0123456789', E2E_GEMINI_KEY: 'AIza-e2e-0123456789' };
const isTerminal = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);

/** Each judge on a wire that streams, but the competitor, left on the replay cassette (no latency: it does not stream). */
const STREAMED = { vc: 'anthropic', engineer: 'openai', pm: 'gemini', customer: 'ollama' } as const;

type Envelope = RunEventEnvelope & { frameId: string };

/**
 * Issue 28 item 6, across real processes: the panel demo's judges speak through the fake wire
 * server, which streams a few ms per token; the provider-worker streams their debate turns and
 * publishes each turn's message as it grows (debate_token_delta, live only), and a real
 * EventSource following the run sees those frames before each whole turn — under the id of the
 * stored event they follow, so Last-Event-ID never moves past the log — while the log itself
 * holds only whole turns. Folded, the frames show a turn growing that the whole turn replaces.
 */
describe('live debate tokens across real services (separate processes)', () => {
  let pipeline: Pipeline;
  let server: FakeLlmServer;

  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error(`${WEB_ROOT}/index.html is missing: run \`node tools/build.mjs\` first (its web target)`);
    server = await startFakeLlmServer({ script: { replies: loadFakeScript(CASSETTE).replies }, streamDelayMs: 3 });
    pipeline = await startPipeline({ providerQueues: '*', env: { ...KEYS, PROVIDER_DISCOVERY_MS: '100' }, apiEnv: { WEB_ROOT } });
  });

  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    await server?.close();
  });

  it('streams each judge turn from a streaming provider as debate_token_delta frames before its debate_message_published, never stored', async () => {
    const demo = projectConfigFrom(DEMO) as { providers: Record<string, unknown>; judges: Record<string, Record<string, unknown>> };
    const cfg = projectConfigFrom(DEMO, {
      providers: {
        ...demo.providers,
        anthropic: { type: 'anthropic', api_key_env: 'E2E_ANTHROPIC_KEY', base_url: server.baseUrls.anthropic },
        openai: { type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: server.baseUrls.openai },
        gemini: { type: 'gemini', api_key_env: 'E2E_GEMINI_KEY', base_url: server.baseUrls.gemini },
        ollama: { type: 'ollama', host: server.baseUrls.ollama },
      },
      judges: {
        ...demo.judges,
        vc: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        engineer: { provider: 'openai', model: 'gpt-5' },
        pm: { provider: 'gemini', model: 'gemini-2.5-pro' },
        customer: { provider: 'ollama', model: 'qwen3:30b-a3b' },
      },
    });
    const res = await submitRun(pipeline.api, cfg);
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const es = new EventSourceFollower(`${pipeline.api}/v1/runs/${id}/events`);
    try {
      await es.waitFor('the terminal event', (notes) => notes.some((n) => n.kind === 'event' && isTerminal(n.type)), 120_000);
      expect(await waitForTerminal(pipeline, id, 10_000)).toMatchObject({ status: 'done', verdict: 'ITERATE' });
      const frames: Envelope[] = es.events();

      // The log: whole turns only, gap-free; the stored frames are exactly the log, each once.
      const log = await pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
      expect(log.some((e) => e.type === 'debate_token_delta')).toBe(false);
      const stored = frames.filter((f) => f.type !== 'debate_token_delta');
      expect(stored.map((f) => [f.sequence, f.type])).toEqual(log.map((e) => [e.sequence, e.type]));
      expect(stored.every((f) => f.frameId === String(f.sequence))).toBe(true);

      // Each delta goes out as the stored event it follows: its sequence and its frame id (the
      // EventSource's lastEventId) are that event's, so a reconnect resumes after the log's last.
      let lastStored = 0;
      for (const f of frames) {
        if (f.type !== 'debate_token_delta') {
          lastStored = f.sequence;
          continue;
        }
        expect({ sequence: f.sequence, frameId: f.frameId }).toEqual({ sequence: lastStored, frameId: String(lastStored) });
      }

      // Before each streamed judge's turn, its deltas (one or more), adding up to the whole message; none for the competitor.
      const turns = frames.filter((f) => f.type === 'debate_message_published');
      expect(turns).toHaveLength(15);
      let from = 0;
      for (const turn of turns) {
        const at = frames.indexOf(turn);
        const p = turn.payload as { speaker: string; round: number; message: string };
        const deltas = frames.slice(from, at).filter((f) => f.type === 'debate_token_delta');
        from = at + 1;
        if (p.speaker === 'competitor') {
          expect(deltas).toEqual([]);
          continue;
        }
        expect(deltas.length).toBeGreaterThan(1);
        expect(deltas.every((d) => d.payload.speaker === p.speaker && d.payload.round === p.round)).toBe(true);
        expect(deltas.map((d) => d.payload.delta).join('')).toBe(p.message);
      }

      // Only debate turns were asked as streams, and each streaming wire was asked for one.
      const streamedAsk = (r: (typeof server.requests)[number]) =>
        (r.body as { stream?: unknown }).stream === true || r.path.endsWith(':streamGenerateContent');
      const asked = server.requests.filter(streamedAsk);
      expect(asked).toHaveLength(12);
      expect(new Set(asked.map((r) => r.wire))).toEqual(new Set(Object.values(STREAMED)));
      expect(server.requests.filter((r) => !streamedAsk(r)).length).toBe(server.requests.length - 12);

      // Folded as the workbench and the CLI fold them: the turn grows, then the whole turn replaces it.
      let view = emptyRunView();
      let sawGrowing = false;
      for (const f of frames) {
        const before = view;
        view = foldRunEvent(view, f);
        if (f.type === 'debate_token_delta') {
          const last = view.panel!.debate.at(-1)!;
          expect(last).toMatchObject({ speaker: f.payload.speaker, round: f.payload.round, streaming: true });
          expect(view.lastSequence).toBe(before.lastSequence);
          const whole = turns.find((t) => t.payload.speaker === last.speaker && t.payload.round === last.round)!;
          expect((whole.payload.message as string).startsWith(last.message)).toBe(true);
          if (last.message.length < (whole.payload.message as string).length) sawGrowing = true;
        }
      }
      expect(sawGrowing).toBe(true);
      expect(view.panel!.debate).toHaveLength(15);
      expect(view.panel!.debate.every((t) => !t.streaming)).toBe(true);
      expect(view.panel!.debate.map((t) => t.message)).toEqual(turns.map((t) => t.payload.message));
      expect(view.status).toBe('done');
    } finally {
      await es.close();
    }
  });

  it('the workbench shows a debate turn growing while its judge speaks, then the whole turn', async () => {
    // Slower tokens (about 2 s a turn) and every judge on the streaming Anthropic wire: the page has turns to watch.
    const slow = await startFakeLlmServer({ script: { replies: loadFakeScript(CASSETTE).replies }, streamDelayMs: 25 });
    const pageErrors: string[] = [];
    try {
      const demo = projectConfigFrom(DEMO) as { providers: Record<string, unknown> };
      const judges = Object.fromEntries(JUDGES.map((j) => [j, { provider: 'anthropic', model: 'claude-sonnet-4-5' }]));
      const cfg = projectConfigFrom(DEMO, {
        max_debate_rounds: 1,
        providers: { ...demo.providers, anthropic: { type: 'anthropic', api_key_env: 'E2E_ANTHROPIC_KEY', base_url: slow.baseUrls.anthropic } },
        judges,
      });
      const res = await submitRun(pipeline.api, cfg);
      expect(res.status).toBe(202);
      const id = res.body.id as string;

      browser = await launchBrowser();
      const page = await (await browser.newContext()).newPage();
      page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
      // The debate lives on the run page's Debate tab, its own URL.
      await page.goto(`${pipeline.api}/runs/${id}/debate`);
      // This api has no tokens: the token screen offers to go on without one.
      await wb.button(page, 'Continue without a token').click();

      // A turn that is still being spoken: marked busy, and its text grows between two looks.
      const speaking = wb.section(page, 'Debate').locator('[data-testid="debate-turn"][aria-busy="true"]');
      await speaking.first().waitFor({ state: 'visible', timeout: 60_000 });
      const message = speaking.first().locator('p.prose');
      const first = (await message.textContent()) ?? '';
      await eventually(async () => {
        const now = (await speaking.first().locator('p.prose').textContent()) ?? '';
        expect(now.length).toBeGreaterThan(first.length);
      }, 10_000, 50);
      await saveScreenshot(page, 'debate-speaking');

      // The run ends: five whole turns, none busy, each the judge's published message.
      await expectText(wb.runStatus(page), 'done', 90_000);
      const turns = wb.section(page, 'Debate').getByTestId('debate-turn');
      await expectCount(turns, 5);
      await expectCount(speaking, 0);
      const published = (await pipeline.sql<{ payload: { message: string } }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'debate_message_published' ORDER BY sequence`, [id])).map((r) => r.payload.message);
      const shown = await turns.locator('p.prose').allTextContents();
      expect(shown).toEqual(published);
      expect(pageErrors).toEqual([]);
    } finally {
      await slow.close();
    }
  });
});
