import { renderReply } from './rendered-reply';
import type { ScriptTurn } from './script-engine';
import { strictSchemaViolation } from './strict-schema-check';

export type FakeCliName = 'claude' | 'codex' | 'grok' | 'gemini' | 'agy';

/** What a fake CLI was asked, read from its argv the way the real CLI reads it. */
export interface FakeCliCall {
  cli: FakeCliName;
  argv: string[];
  prompt: string;
  system: string | null;
  model: string | null;
  /** claude/grok: the --json-schema text; codex: the --output-schema file's content; agy: --json-schema's file or text. */
  schema: string | null;
  /** codex: the -o file. */
  lastMessageFile: string | null;
}

export interface FakeCliOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Sleep this long before exiting without output (the `hang` fault). */
  hangMs?: number;
  /** While hanging, ignore SIGTERM, and start a helper that ignores it too (`hang_ignoring_sigterm`). */
  ignoreSigterm?: boolean;
  files?: Record<string, string>;
}

const DEFAULT_MODEL: Record<FakeCliName, string> = { claude: 'claude-sonnet-4-5', codex: 'gpt-5-codex', grok: 'grok-4', gemini: 'gemini-2.5-pro', agy: 'gemini-3.5-flash' };

/** Each CLI's own words for each failure (as seen from the real CLIs). */
const FAILURE_WORDS: Record<FakeCliName, Record<string, string>> = {
  claude: {
    usage_limit: "You've hit your limit · resets 5pm (UTC)",
    '401': 'Invalid API key · Please run /login',
    '429': 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}',
    '500': 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
    '404': "There's an issue with the selected model ({model}). It may not exist or you may not have access to it.",
  },
  codex: {
    usage_limit: "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), or try again in 2 days 3 hours.",
    '401': 'unexpected status 401 Unauthorized: Your authentication token has expired. Please log in again.',
    '429': 'exceeded retry limit, last status: 429 Too Many Requests',
    '500': 'unexpected status 500 Internal Server Error',
    '404': "unexpected status 404 Not Found: The model '{model}' does not exist",
  },
  grok: {
    usage_limit: 'Usage limit reached for your plan. Try again later.',
    '401': '401 Unauthorized: not logged in, run grok login',
    '429': '429 Too Many Requests: rate limit exceeded',
    '500': '500 Internal Server Error',
    '404': 'Model {model} not found',
  },
  gemini: {
    usage_limit: "Quota exceeded for quota metric 'Gemini 2.5 Pro Requests' and limit 'Gemini 2.5 Pro Requests per day per user per tier'",
    '401': 'Request had invalid authentication credentials (401 UNAUTHENTICATED)',
    '429': '429 Too Many Requests: rate limit exceeded, retry later',
    '500': '500 Internal Server Error: An internal error has occurred.',
    '404': 'models/{model} is not found for API version v1beta',
  },
  // agy's words from its issue tracker (google-antigravity/antigravity-cli #46, #234, #944, #702).
  agy: {
    usage_limit: 'RESOURCE_EXHAUSTED: Individual quota reached. Contact your administrator to enable overages. Resets in 167h39m10s.',
    '401': 'Authentication required. Error: authentication timed out',
    '429': '429 Too Many Requests: rate limit exceeded, retry later',
    '500': '500 Internal Server Error: An internal error has occurred.',
    '404': 'invalid model "{model}" in settings\nAvailable models:\n  gemini-3.5-flash\n  gemini-3.1-pro',
  },
};

const line = (o: unknown) => `${JSON.stringify(o)}\n`;

/**
 * agy 1.1.8+ prints `response` with its newlines raw, not escaped (google-antigravity/
 * antigravity-cli#702): invalid JSON for a strict parser, reproduced here so the adapter must cope.
 */
function agyEnvelopeLine(envelope: Record<string, unknown>, response: string): string {
  const marker = '\u0000AGY_RESPONSE\u0000';
  const escaped = JSON.stringify(response).replace(/(?<!\\)((?:\\\\)*)\\n/g, '$1\n');
  return line({ ...envelope, response: marker }).replace(JSON.stringify(marker), () => escaped);
}

/**
 * The output a CLI prints for one scripted turn: its documented JSON envelope (claude/grok
 * one object, codex JSONL events plus the -o file, gemini `{response, stats}`, agy
 * `{status, response, usage}`), or its failure in its own words.
 */
export function fakeCliOutput(call: FakeCliCall, turn: ScriptTurn, seq: number): FakeCliOutput {
  const model = call.model ?? DEFAULT_MODEL[call.cli];
  const fullPrompt = [call.system, call.prompt].filter(Boolean).join('\n');
  if (turn.error || !turn.entry) return failure(call, turn.error ?? 'fake-llm: no reply', 1);
  const entry = turn.entry;
  if (entry.fault === 'hang') return { stdout: '', stderr: '', exitCode: 0, hangMs: entry.hang_ms ?? 600_000 };
  if (entry.fault === 'hang_ignoring_sigterm') return { stdout: '', stderr: '', exitCode: 0, hangMs: entry.hang_ms ?? 600_000, ignoreSigterm: true };
  if (entry.fault && FAILURE_WORDS[call.cli][entry.fault]) {
    return failure(call, FAILURE_WORDS[call.cli][entry.fault].replace('{model}', model), 1);
  }
  if (entry.fault === 'malformed_body') return { stdout: 'Error: something went wrong\n{"partial": ', stderr: '', exitCode: 0 };
  if (call.cli === 'codex' && call.schema !== null) {
    const violation = strictSchemaViolation(safeJson(call.schema), 'codex_output_schema');
    if (violation) return failure(call, violation, 1);
  }
  const reply = renderReply(entry, fullPrompt);
  const cost = entry.cost_usd ?? Math.round(((reply.usage.input * 3 + reply.usage.output * 15) / 1e6) * 1e6) / 1e6;
  switch (call.cli) {
    case 'claude': {
      const cancelled = entry.fault === 'cancelled';
      return {
        stdout: line({
          type: 'result',
          subtype: cancelled ? 'error_max_turns' : 'success',
          is_error: cancelled,
          duration_ms: 1200,
          duration_api_ms: 1100,
          num_turns: 1,
          result: reply.text,
          stop_reason: cancelled ? null : 'end_turn',
          session_id: `fake-claude-session-${seq}`,
          total_cost_usd: cost,
          usage: {
            input_tokens: reply.usage.input - reply.usage.cached,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: reply.usage.cached,
            output_tokens: reply.usage.output,
          },
          modelUsage: { [model]: { inputTokens: reply.usage.input, outputTokens: reply.usage.output, costUSD: cost } },
          permission_denials: [],
          ...(reply.object ? { structured_output: reply.object } : {}),
          uuid: `fake-uuid-${seq}`,
        }),
        stderr: '',
        exitCode: cancelled ? 1 : 0,
      };
    }
    case 'grok':
      return {
        stdout: line({
          type: 'result',
          text: reply.text,
          ...(reply.object ? { structuredOutput: reply.object } : {}),
          stopReason: entry.fault === 'cancelled' ? 'cancelled' : 'end_turn',
          model,
          session_id: `fake-grok-session-${seq}`,
          usage: { input_tokens: reply.usage.input - reply.usage.cached, cache_read_input_tokens: reply.usage.cached, output_tokens: reply.usage.output },
          total_cost_usd: cost,
        }),
        stderr: '',
        exitCode: 0,
      };
    case 'codex': {
      const events = [
        { type: 'thread.started', thread_id: `fake-thread-${seq}` },
        { type: 'turn.started' },
        ...(entry.fault === 'reconnect' ? [{ type: 'error', message: 'Reconnecting... 1/5 (stream disconnected before completion)' }] : []),
        { type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Reading the request**' } },
        { type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: reply.text } },
        { type: 'turn.completed', usage: { input_tokens: reply.usage.input, cached_input_tokens: reply.usage.cached, output_tokens: reply.usage.output } },
      ];
      return {
        stdout: events.map(line).join(''),
        stderr: '',
        exitCode: 0,
        files: call.lastMessageFile ? { [call.lastMessageFile]: reply.text } : {},
      };
    }
    case 'gemini':
      return {
        stdout: line({
          response: reply.text,
          stats: {
            models: {
              [model]: {
                api: { totalRequests: 1, totalErrors: 0, totalLatencyMs: 900 },
                tokens: { prompt: reply.usage.input, candidates: reply.usage.output, total: reply.usage.input + reply.usage.output, cached: reply.usage.cached, thoughts: 0, tool: 0 },
              },
            },
            tools: { totalCalls: 0, totalSuccess: 0, totalFail: 0, totalDurationMs: 0, byName: {} },
            files: { totalLinesAdded: 0, totalLinesRemoved: 0 },
          },
        }),
        stderr: '',
        exitCode: 0,
      };
    case 'agy': {
      const thinking = 0;
      return {
        stdout: agyEnvelopeLine(
          {
            conversation_id: `fake-agy-conversation-${seq}`,
            status: 'SUCCESS',
            duration_seconds: 2.98,
            num_turns: 1,
            // Gemini-style: input_tokens already holds the cached ones (total_tokens = input + output + thinking).
            usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output, thinking_tokens: thinking, cache_read_tokens: reply.usage.cached, total_tokens: reply.usage.input + reply.usage.output + thinking },
            ...(reply.object && call.schema !== null ? { structured_output: reply.object } : {}),
          },
          reply.text ? `${reply.text}\n` : '',
        ),
        stderr: '',
        exitCode: 0,
      };
    }
  }
}

function failure(call: FakeCliCall, words: string, exitCode: number): FakeCliOutput {
  switch (call.cli) {
    case 'claude':
      return { stdout: line({ type: 'result', subtype: 'success', is_error: true, result: words, session_id: 'fake-claude-error', total_cost_usd: 0 }), stderr: '', exitCode };
    case 'grok':
      return { stdout: line({ type: 'result', is_error: true, error: words }), stderr: '', exitCode };
    case 'codex':
      return {
        stdout: [{ type: 'thread.started', thread_id: 'fake-thread-error' }, { type: 'turn.started' }, { type: 'error', message: words }, { type: 'turn.failed', error: { message: words } }]
          .map(line)
          .join(''),
        stderr: '',
        exitCode,
      };
    case 'gemini':
      return { stdout: line({ error: { type: 'Error', message: words, code: exitCode } }), stderr: '', exitCode };
    case 'agy':
      return { stdout: line({ conversation_id: '', status: 'ERROR', response: '', error: words, duration_seconds: 0.4, num_turns: 0 }), stderr: '', exitCode };
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
