import type { ErrorContext, SuccessContext, Wire, WireErrorKind, WireReply } from './wire';
import { header, streamPieces, textOf } from './wire';

const ERRORS: Record<WireErrorKind, { status: number; word: string; message: string }> = {
  auth: { status: 401, word: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' },
  not_found: { status: 404, word: 'NOT_FOUND', message: 'models/{model} is not found for API version v1beta, or is not supported for generateContent.' },
  rate_limit: { status: 429, word: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota, please check your plan and billing details. Please retry in {retry}s.' },
  server: { status: 500, word: 'INTERNAL', message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting' },
  usage_limit: { status: 429, word: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota, please check your plan and billing details.' },
  bad_request: { status: 400, word: 'INVALID_ARGUMENT', message: 'bad request' },
};

const PATH = /^\/(v1beta|v1)\/models\/([^:]+):(generateContent|streamGenerateContent)$/;

interface Content {
  role?: string;
  parts?: unknown;
}

/** Gemini API generateContent (POST /v1beta/models/<model>:generateContent), and streamGenerateContent as SSE (`alt=sse`). */
export const geminiWire: Wire = {
  name: 'gemini',
  matches: (method, path) => method === 'POST' && PATH.test(path),
  prompt: ({ body }) => {
    const sys = body.systemInstruction as Content | string | undefined;
    const system = typeof sys === 'string' ? sys : textOf(sys?.parts);
    const contents = Array.isArray(body.contents) ? (body.contents as Content[]) : [];
    return [system, ...contents.map((c) => textOf(c.parts))].filter(Boolean).join('\n');
  },
  apiKey: ({ headers, query }) => header(headers, 'x-goog-api-key') ?? query.get('key'),
  model: ({ path }) => decodeURIComponent(PATH.exec(path)?.[2] ?? ''),

  success({ req, reply, fault, seq }: SuccessContext): WireReply {
    const model = geminiWire.model(req);
    const finishReason = fault === 'cancelled' ? 'SAFETY' : 'STOP';
    const usageMetadata = {
      promptTokenCount: reply.usage.input,
      candidatesTokenCount: reply.usage.output,
      totalTokenCount: reply.usage.input + reply.usage.output,
      cachedContentTokenCount: reply.usage.cached,
    };
    const responseId = `resp_fake_${seq}`;
    // The Gemini API often sends no id with a call: an entry's id is sent only when it has one.
    const calls = reply.toolCalls.map((t) => ({ functionCall: { ...(t.id ? { id: t.id } : {}), name: t.name, args: t.arguments } }));
    if (PATH.exec(req.path)?.[3] === 'streamGenerateContent' && !calls.length) {
      // Each chunk is a GenerateContentResponse with the next piece; the last has the finish reason and the usage.
      const pieces = streamPieces(reply.text);
      const chunk = (parts: unknown[], last: boolean) => ({
        candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason } : {}), index: 0 }],
        ...(last ? { usageMetadata } : { usageMetadata: { promptTokenCount: reply.usage.input } }),
        modelVersion: model,
        responseId,
      });
      const chunks = pieces.length ? pieces.map((p, i) => chunk([{ text: p }], i === pieces.length - 1)) : [chunk([], true)];
      return { status: 200, sse: chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`) };
    }
    return {
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts: [...(reply.text ? [{ text: reply.text }] : []), ...calls] }, finishReason, index: 0 }],
        usageMetadata,
        modelVersion: model,
        responseId,
      },
    };
  },

  error(kind, ctx: ErrorContext): WireReply {
    const e = ERRORS[kind];
    const retry = ctx.retryAfterS ?? 1;
    const message = (ctx.message ?? e.message).replace('{model}', geminiWire.model(ctx.req)).replace('{retry}', String(retry));
    // Gemini says when to retry in a RetryInfo detail, not a header.
    const details = kind === 'rate_limit' ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` }] : undefined;
    return { status: e.status, body: { error: { code: e.status, message, status: e.word, ...(details ? { details } : {}) } } };
  },
};
