import type { ErrorContext, Wire, WireErrorKind, WireReply } from './wire';
import { header, streamPieces, textOf } from './wire';

const ERRORS: Record<WireErrorKind, { status: number; type: string; message: string }> = {
  auth: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
  not_found: { status: 404, type: 'not_found_error', message: 'model: {model}' },
  rate_limit: { status: 429, type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.' },
  server: { status: 500, type: 'api_error', message: 'Internal server error' },
  usage_limit: { status: 400, type: 'invalid_request_error', message: 'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.' },
  bad_request: { status: 400, type: 'invalid_request_error', message: 'bad request' },
};

/**
 * Models that think unless told not to (Claude Sonnet 5.5, Opus 5.5): their replies open with a
 * thinking block, and they answer a forced tool_choice with a 400 (their migration guides).
 */
export const THINKS_BY_DEFAULT = /^claude-(sonnet|opus)-5-5/;

interface ToolChoice {
  type?: string;
  name?: string;
}

/**
 * Anthropic Messages API (POST /v1/messages): a text reply (structured outputs: the JSON
 * object as text), tool_use when a tool is forced or the entry has tool_calls, and SSE when `stream: true`.
 */
export const anthropicWire: Wire = {
  name: 'anthropic',
  matches: (method, path) => method === 'POST' && path === '/v1/messages',
  prompt: ({ body }) => {
    const system = textOf(body.system);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return [system, ...messages.map((m) => textOf((m as { content?: unknown }).content))].filter(Boolean).join('\n');
  },
  // x-api-key historically; @anthropic-ai/sdk 1.x sends `Authorization: Bearer`.
  apiKey: ({ headers }) => {
    const auth = header(headers, 'authorization');
    return header(headers, 'x-api-key') ?? (auth?.startsWith('Bearer ') ? auth.slice(7) : null);
  },
  model: ({ body }) => String(body.model ?? ''),

  success({ req, reply, fault, seq }): WireReply {
    const choice = (req.body.tool_choice ?? {}) as ToolChoice;
    const forcedTool = choice.type === 'tool' && choice.name ? choice.name : null;
    // A forced tool always yields tool_use; a broken or empty reply becomes text, as a model ignoring the tool would.
    const asTool = forcedTool !== null && reply.object !== null && reply.toolCalls.length === 0;
    // A scripted tool loop turn: the text beside the calls first, then a tool_use block per call.
    const calls = reply.toolCalls.map((t, i) => ({ type: 'tool_use', id: t.id ?? `toolu_fake_${seq}_${i}`, name: t.name, input: t.arguments }));
    const content: Array<Record<string, unknown>> = asTool
      ? [{ type: 'tool_use', id: `toolu_fake_${seq}`, name: forcedTool, input: reply.object }]
      : [...(reply.text ? [{ type: 'text', text: reply.text }] : []), ...calls];
    if (THINKS_BY_DEFAULT.test(String(req.body.model ?? ''))) {
      content.unshift({ type: 'thinking', thinking: 'The reply must match the schema.', signature: `sig_fake_${seq}` });
    }
    const stopReason = asTool || calls.length ? 'tool_use' : fault === 'cancelled' ? 'refusal' : 'end_turn';
    const usage = {
      input_tokens: reply.usage.input - reply.usage.cached,
      output_tokens: reply.usage.output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: reply.usage.cached,
    };
    const message = {
      id: `msg_fake_${seq}`,
      type: 'message',
      role: 'assistant',
      model: String(req.body.model ?? ''),
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    };
    const headers = { 'request-id': `req_fake_${seq}` };
    if (req.body.stream === true) return { status: 200, headers, sse: sse(message, usage) };
    return { status: 200, headers, body: message };
  },

  error(kind, ctx: ErrorContext): WireReply {
    const e = ERRORS[kind];
    const headers: Record<string, string> = { 'request-id': `req_fake_${ctx.seq}` };
    if (kind === 'rate_limit') headers['retry-after'] = String(ctx.retryAfterS ?? 1);
    const message = (ctx.message ?? e.message).replace('{model}', String(ctx.req.body.model ?? ''));
    return { status: e.status, headers, body: { type: 'error', error: { type: e.type, message } } };
  },
};

const event = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/** The event sequence the Messages API streams; tool input arrives as input_json_delta chunks. */
function sse(message: { content: Array<Record<string, unknown>>; stop_reason: string; usage: Record<string, number> }, usage: Record<string, number>): string[] {
  const events = [event('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } })];
  message.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
      for (const part of chunks(JSON.stringify(block.input))) {
        events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } }));
      }
    } else if (block.type === 'thinking') {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }));
      events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const part of streamPieces(String(block.text ?? ''))) {
        events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } }));
      }
    }
    events.push(event('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(event('message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(event('message_stop', { type: 'message_stop' }));
  return events;
}

function chunks(s: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

