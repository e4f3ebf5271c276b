import type { ErrorContext, SuccessContext, Wire, WireErrorKind, WireReply } from './wire';
import { streamPieces, textOf } from './wire';

const ERRORS: Record<WireErrorKind, { status: number; message: string }> = {
  auth: { status: 401, message: 'unauthorized' },
  not_found: { status: 404, message: 'model "{model}" not found, try pulling it first' },
  rate_limit: { status: 429, message: 'too many requests' },
  server: { status: 500, message: 'llama runner process has terminated: exit status 2' },
  usage_limit: { status: 429, message: 'you have reached your weekly usage limit' },
  bad_request: { status: 400, message: 'bad request' },
};

/** Ollama's native chat API (POST /api/chat): one JSON reply, or NDJSON lines when `stream: true` (ollama-js always says which; a bare request gets the whole reply). */
export const ollamaWire: Wire = {
  name: 'ollama',
  matches: (method, path) => method === 'POST' && path === '/api/chat',
  prompt: ({ body }) => {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return messages.map((m) => textOf((m as { content?: unknown }).content)).filter(Boolean).join('\n');
  },
  apiKey: () => undefined,
  model: ({ body }) => String(body.model ?? ''),

  success({ req, reply, fault }: SuccessContext): WireReply {
    const model = String(req.body.model ?? '');
    const done = {
      model,
      created_at: new Date().toISOString(),
      message: {
        role: 'assistant',
        content: reply.text,
        // Ollama's calls carry no id, and their arguments are an object, not a JSON string.
        ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls.map((t) => ({ function: { name: t.name, arguments: t.arguments } })) } : {}),
      },
      done: true,
      done_reason: fault === 'cancelled' ? 'length' : 'stop',
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: reply.usage.input,
      prompt_eval_duration: 400_000,
      eval_count: reply.usage.output,
      eval_duration: 500_000,
    };
    if (req.body.stream === true && !reply.toolCalls.length) {
      // A line per piece, then the done line with the counts (and, as Ollama sends it, no content).
      const line = (content: string) => JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', content }, done: false });
      return { status: 200, ndjson: [...streamPieces(reply.text).map(line), JSON.stringify({ ...done, message: { role: 'assistant', content: '' } })] };
    }
    return { status: 200, body: done };
  },

  error(kind, ctx: ErrorContext): WireReply {
    const e = ERRORS[kind];
    const headers: Record<string, string> = kind === 'rate_limit' ? { 'retry-after': String(ctx.retryAfterS ?? 1) } : {};
    return { status: e.status, headers, body: { error: (ctx.message ?? e.message).replace('{model}', String(ctx.req.body.model ?? '')) } };
  },
};
