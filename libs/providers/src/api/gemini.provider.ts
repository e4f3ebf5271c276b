import { ApiError, GoogleGenAI } from '@google/genai';
import type { GenerateContentParameters } from '@google/genai';
import type { GeminiProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderError, ProviderRequest } from '../provider';
import { errorFromHttp, errorFromTransport, redactError, retryAfterFromHeaders } from '../errors/http-error';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { readApiKey } from './api-key';
import { fetchWithoutUndiciTimeouts, headerKeepingFetch } from './failed-response-headers';
import { geminiQuota } from './gemini-quota';
import { geminiContents, geminiToolCalls, geminiToolConfig } from './gemini-tools';
import { type GeminiReply, streamedGenerate } from './gemini-stream';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * @google/genai puts the whole error body, as a JSON string, in ApiError.message, and drops
 * the headers (read from the fetch instead). A 429's body decides rate limit or spent quota.
 */
function errorFromGenai(provider: string, e: unknown, failed: { timeoutMs: number; endpoint: string; secret: string; elapsedMs: number; headers: Headers | null }): ProviderError {
  if (!(e instanceof ApiError)) return redactError(errorFromTransport(provider, e, failed.timeoutMs, failed.endpoint, failed.elapsedMs), failed.secret);
  let body: unknown = null;
  try {
    body = JSON.parse(e.message);
  } catch {
    // not JSON: keep the message as the provider's words
  }
  const err = isObj(body) && isObj(body.error) ? body.error : {};
  const message = typeof err.message === 'string' && err.message ? err.message : e.message;
  const headerRetryAfterS = retryAfterFromHeaders(failed.headers);
  const quota = e.status === 429 ? geminiQuota({ message, details: err.details }, headerRetryAfterS) : null;
  const mapped = errorFromHttp({
    provider,
    status: e.status,
    message,
    type: typeof err.status === 'string' ? err.status : null,
    retryAfterS: quota ? quota.retryAfterS : headerRetryAfterS,
    quota: quota?.verdict ?? null,
  });
  return redactError(mapped, failed.secret);
}

/**
 * Gemini generateContent via @google/genai. Structured output is
 * `responseMimeType: application/json` with the reply schema as `responseJsonSchema`. A tool loop's
 * turn (`req.tools`) offers the tools as function declarations, mode AUTO, unstreamed.
 */
export class GeminiProvider implements Provider {
  readonly type = 'gemini';

  constructor(
    readonly name: string,
    private readonly cfg: z.infer<typeof GeminiProviderConfig>,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async run(req: ProviderRequest): Promise<Completion> {
    const apiKey = readApiKey(this.name, this.cfg.api_key_env, this.env);
    const baseUrl = this.cfg.base_url ?? GEMINI_DEFAULT_BASE_URL;
    // vertexai pinned off: GOOGLE_GENAI_USE_VERTEXAI in the environment must not reroute the call.
    // No retryOptions: the SDK then makes exactly one attempt. Our fetch keeps a failure's headers (retry-after).
    const http = headerKeepingFetch(fetchWithoutUndiciTimeouts);
    const client = new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl, timeout: req.timeoutMs, fetch: http.fetch } });
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const started = Date.now();
    const params: GenerateContentParameters = {
      model: req.model,
      contents: geminiContents(req.messages),
      config: {
        ...(system ? { systemInstruction: system } : {}),
        temperature: req.temperature,
        maxOutputTokens: req.maxTokens,
        // A tool loop's turn offers the tools and lets the model choose; the reply schema is not asked for then.
        ...(req.tools ? geminiToolConfig(req.tools) : { responseMimeType: 'application/json', responseJsonSchema: plainJsonSchema(req.jsonSchema) }),
      },
    };
    const onDelta = req.tools ? undefined : req.onDelta;
    let res: GeminiReply;
    try {
      res = onDelta ? await streamedGenerate(client, params, onDelta, req.timeoutMs) : await client.models.generateContent(params);
    } catch (e) {
      throw errorFromGenai(this.name, e, { timeoutMs: req.timeoutMs, endpoint: baseUrl, secret: apiKey, elapsedMs: Date.now() - started, headers: http.failedHeaders() });
    }
    const candidate = res.candidates?.[0];
    const parts = candidate?.content?.parts ?? [];
    const text = parts
      .filter((p) => typeof p.text === 'string' && !p.thought)
      .map((p) => p.text)
      .join('');
    const u = res.usageMetadata;
    return {
      text,
      parsed: req.tools ? null : parseJsonReply(text),
      usage: {
        inputTokens: u?.promptTokenCount ?? 0,
        // thinking tokens are billed as output
        outputTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
        cachedInputTokens: u?.cachedContentTokenCount ?? 0,
      },
      provider: this.name,
      model: res.modelVersion ?? req.model,
      latencyMs: Date.now() - started,
      requestId: res.responseId ?? null,
      stopReason: candidate?.finishReason ?? res.promptFeedback?.blockReason ?? null,
      reportedCostUsd: null,
      raw: { candidates: res.candidates, usageMetadata: res.usageMetadata, modelVersion: res.modelVersion, responseId: res.responseId, promptFeedback: res.promptFeedback },
      billing: 'api',
      ...(req.tools ? { toolCalls: geminiToolCalls(this.name, parts), native: { type: 'gemini', content: parts } } : {}),
    };
  }
}
