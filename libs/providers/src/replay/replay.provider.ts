import type { Completion, Provider, ProviderRequest } from '../provider';
import { ProviderError } from '../provider';
import { loadCassette } from './cassette';

const approxTokens = (s: string) => Math.ceil(s.length / 4);

/** How many pieces a replayed reply streams in when asked to (about one per token would be thousands of timers). */
const REPLAY_PIECES = 24;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The cassette's latency, spent. With onDelta, the reply's text goes out in pieces spread over
 * it, as a streaming model's would; without, one wait. Without a latency there is nothing to
 * spread it over: the reply arrives whole and onDelta is not called.
 */
async function playOver(text: string, latencyMs: number, onDelta: ((t: string) => void) | undefined): Promise<void> {
  if (!onDelta || !text) return void (await pause(latencyMs));
  const size = Math.ceil(text.length / REPLAY_PIECES);
  const pieces = Math.ceil(text.length / size);
  for (let i = 0; i < pieces; i++) {
    await pause(latencyMs / pieces);
    try {
      onDelta(text.slice(i * size, (i + 1) * size));
    } catch {
      // a preview listener's failure is not the call's
    }
  }
}

/** Answers from a cassette file (role + ordinal → reply), checking its prompt guards. */
export class ReplayProvider implements Provider {
  readonly type = 'replay';

  constructor(
    readonly name: string,
    private readonly cassettePath: string,
    private readonly latencyMs = 0,
  ) {}

  async run(req: ProviderRequest): Promise<Completion> {
    const started = Date.now();
    const prompt = req.messages.map((m) => m.content).join('\n');
    // A reply with `match` is one of this role's only for a prompt that holds it (one cassette, many tasks: an eval's).
    const ofRole = loadCassette(this.cassettePath).replies.filter((r) => r.role === req.role);
    const replies = ofRole.filter((r) => r.match === undefined || prompt.includes(r.match));
    const entry = replies[req.ordinal];
    if (!entry) {
      throw new ProviderError(
        'REPLAY_EXHAUSTED',
        `replay cassette ${this.cassettePath} has no reply #${req.ordinal + 1} for role ${req.role}${ofRole.some((r) => r.match) ? ' and this prompt' : ''} (it holds ${replies.length})`,
      );
    }
    for (const s of entry.expects ?? []) {
      if (!prompt.includes(s)) {
        throw new ProviderError('REPLAY_GUARD', `replay guard failed for ${req.role} reply #${req.ordinal + 1}: the prompt does not contain expected "${s}"`);
      }
    }
    for (const s of entry.forbids ?? []) {
      if (prompt.includes(s)) {
        throw new ProviderError('REPLAY_GUARD', `replay guard failed for ${req.role} reply #${req.ordinal + 1}: the prompt contains forbidden "${s}"`);
      }
    }
    let text: string;
    let parsed: unknown | null;
    if (typeof entry.reply === 'string') {
      text = entry.reply;
      try {
        parsed = JSON.parse(entry.reply);
      } catch {
        parsed = null;
      }
    } else {
      text = JSON.stringify(entry.reply);
      parsed = entry.reply;
    }
    if (this.latencyMs > 0) await playOver(text, this.latencyMs, req.onDelta);
    return {
      text,
      parsed,
      usage: { inputTokens: approxTokens(prompt), outputTokens: approxTokens(text), cachedInputTokens: 0 },
      provider: this.name,
      model: req.model,
      latencyMs: Date.now() - started,
      requestId: null,
      stopReason: 'end_turn',
      reportedCostUsd: null,
      raw: { replay: { cassette: this.cassettePath, role: req.role, ordinal: req.ordinal } },
    };
  }
}
