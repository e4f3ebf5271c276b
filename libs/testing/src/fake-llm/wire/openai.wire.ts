import type { ErrorContext, SuccessContext, Wire, WireErrorKind, WireReply } from './wire';
import { header, streamPieces, textOf } from './wire';

const ERRORS: Record<WireErrorKind, { status: number; type: string; code: string | null; message: string }> = {
  // The real API echoes (part of) the key: the fake echoes all of it, so redaction is tested.
  auth: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys.' },
  not_found: { status: 404, type: 'invalid_request_error', code: 'model_not_found', message: 'The model `{model}` does not exist or you do not have access to it.' },
  rate_limit: { status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for {model} on requests per min (RPM): Limit 3, Used 3, Requested 1.' },
  server: { status: 500, type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  usage_limit: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' },
  bad_request: { status: 400, type: 'invalid_request_error', code: null, message: 'bad request' },
};

/** OpenAI chat completions (POST /v1/chat/completions), as OpenAI, xAI and vLLM serve it. */
export const openaiWire: Wire = {
  name: 'openai',
  matches: (method, path) => method === 'POST' && /^(\/v1)?\/chat\/completions$/.test(path),
  prompt: ({ body }) => {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return messages.map((m) => textOf((m as { content?: unknown }).content)).filter(Boolean).join('\n');
  },
  apiKey: ({ headers }) => {
    const auth = header(headers, 'authorization');
    return auth?.startsWith('Bearer ') ? auth.slice(7) : null;
  },
  model: ({ body }) => String(body.model ?? ''),

  success({ req, reply, fault, seq }: SuccessContext): WireReply {
    const id = `chatcmpl-fake-${seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = String(req.body.model ?? '');
    const finishReason = fault === 'cancelled' ? 'content_filter' : 'stop';
    const usage = {
      prompt_tokens: reply.usage.input,
      completion_tokens: reply.usage.output,
      total_tokens: reply.usage.input + reply.usage.output,
      prompt_tokens_details: { cached_tokens: reply.usage.cached },
    };
    const headers = { 'x-request-id': `req_fake_${seq}` };
    // A tool loop turn is answered whole even when a stream was asked for (the adapters never stream one).
    const toolCalls = reply.toolCalls.map((t, i) => ({ id: t.id ?? `call_fake_${seq}_${i}`, type: 'function', function: { name: t.name, arguments: JSON.stringify(t.arguments) } }));
    if (req.body.stream === true && !toolCalls.length) {
      const withUsage = (req.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      return { status: 200, headers, sse: chunkEvents({ id, created, model, text: reply.text, finishReason, usage: withUsage ? usage : null }) };
    }
    return {
      status: 200,
      headers,
      body: {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          toolCalls.length
            ? { index: 0, message: { role: 'assistant', content: reply.text || null, refusal: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }
            : { index: 0, message: { role: 'assistant', content: reply.text, refusal: null }, finish_reason: finishReason },
        ],
        usage,
      },
    };
  },

  error(kind, ctx: ErrorContext): WireReply {
    const e = ERRORS[kind];
    const headers: Record<string, string> = { 'x-request-id': `req_fake_${ctx.seq}` };
    if (kind === 'rate_limit') headers['retry-after'] = String(ctx.retryAfterS ?? 1);
    const message = (ctx.message ?? e.message).replace('{model}', String(ctx.req.body.model ?? '')).replace('{key}', ctx.key ?? '');
    return { status: e.status, headers, body: { error: { message, type: e.type, param: null, code: e.code } } };
  },
};

const data = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;

/**
 * The chunks chat completions streams: the role first, the content a piece a chunk, the
 * finish reason in a chunk of its own, then (with `stream_options.include_usage`) a chunk with
 * no choices and the usage, and `[DONE]`.
 */
function chunkEvents(o: { id: string; created: number; model: string; text: string; finishReason: string; usage: Record<string, unknown> | null }): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: o.id,
    object: 'chat.completion.chunk',
    created: o.created,
    model: o.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(o.usage ? { usage: null } : {}),
  });
  const events = [data(chunk({ role: 'assistant', content: '', refusal: null }, null))];
  for (const piece of streamPieces(o.text)) events.push(data(chunk({ content: piece }, null)));
  events.push(data(chunk({}, o.finishReason)));
  if (o.usage) events.push(data({ id: o.id, object: 'chat.completion.chunk', created: o.created, model: o.model, choices: [], usage: o.usage }));
  events.push('data: [DONE]\n\n');
  return events;
}
