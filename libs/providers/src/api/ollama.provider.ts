import { Ollama } from 'ollama';
import type { ChatResponse } from 'ollama';
import type { OllamaProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderError, ProviderRequest } from '../provider';
import { errorFromHttp, errorFromTransport, retryAfterFromHeaders } from '../errors/http-error';
import { headerKeepingFetch } from './failed-response-headers';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { streamedChat } from './ollama-stream';
import { ollamaMessage, ollamaToolCalls, ollamaTools } from './ollama-tools';

/** ollama-js has no timeout of its own: every request it makes gets ours. */
function fetchWithTimeout(timeoutMs: number): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetch(input, { ...init, signal });
  };
}

/** ollama-js's ResponseError has the status and the words but not the headers: those come from our fetch. */
function errorFromOllama(provider: string, e: unknown, timeoutMs: number, host: string, elapsedMs: number, headers: Headers | null): ProviderError {
  const err = e as Error & { status_code?: unknown; error?: unknown };
  if (e instanceof Error && err.name === 'ResponseError' && typeof err.status_code === 'number') {
    const message = typeof err.error === 'string' ? err.error : err.message;
    return errorFromHttp({ provider, status: err.status_code, message, retryAfterS: retryAfterFromHeaders(headers) });
  }
  return errorFromTransport(provider, e, timeoutMs, host, elapsedMs);
}

/**
 * A local model through Ollama's /api/chat. Structured output is `format` = the JSON schema; a
 * tool loop's turn (`req.tools`) sends `tools` instead, unstreamed.
 */
export class OllamaProvider implements Provider {
  readonly type = 'ollama';

  constructor(
    readonly name: string,
    private readonly cfg: z.infer<typeof OllamaProviderConfig>,
  ) {}

  async run(req: ProviderRequest): Promise<Completion> {
    const host = this.cfg.host;
    const http = headerKeepingFetch(fetchWithTimeout(req.timeoutMs));
    const client = new Ollama({ host, fetch: http.fetch });
    const started = Date.now();
    const params = {
      model: req.model,
      messages: req.messages.map(ollamaMessage),
      // A tool loop's turn offers the tools and lets the model choose; the reply schema is not asked for then.
      ...(req.tools ? { tools: ollamaTools(req.tools) } : { format: plainJsonSchema(req.jsonSchema) }),
      options: { temperature: req.temperature, num_predict: req.maxTokens },
    };
    const onDelta = req.tools ? undefined : req.onDelta;
    let res: ChatResponse;
    try {
      res = onDelta ? await streamedChat(client, params, onDelta) : await client.chat({ ...params, stream: false });
    } catch (e) {
      throw errorFromOllama(this.name, e, req.timeoutMs, host, Date.now() - started, http.failedHeaders());
    }
    const text = res.message?.content ?? '';
    return {
      text,
      parsed: req.tools ? null : parseJsonReply(text),
      usage: { inputTokens: res.prompt_eval_count ?? 0, outputTokens: res.eval_count ?? 0, cachedInputTokens: 0 },
      provider: this.name,
      model: res.model ?? req.model,
      latencyMs: Date.now() - started,
      requestId: null,
      stopReason: res.done_reason ?? null,
      reportedCostUsd: null,
      raw: res,
      ...(req.tools ? { toolCalls: ollamaToolCalls(this.name, res.message?.tool_calls) } : {}),
    };
  }
}
