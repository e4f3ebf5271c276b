import { ApiError, GoogleGenAI } from '@google/genai';
import type { GenerateContentResponse } from '@google/genai';
import type { GeminiProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderError, ProviderRequest } from '../provider';
import { errorFromHttp, errorFromTransport, redactError } from '../errors/http-error';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { readApiKey } from './api-key';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Gemini's RetryInfo detail ("27s") is its retry-after. */
function retryDelayS(details: unknown): number | null {
  if (!Array.isArray(details)) return null;
  for (const d of details) {
    if (isObj(d) && typeof d.retryDelay === 'string') {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay);
      if (m) return Number(m[1]);
    }
  }
  return null;
}

/** @google/genai puts the whole error body, as a JSON string, in ApiError.message. */
function errorFromGenai(provider: string, e: unknown, timeoutMs: number, endpoint: string, secret: string, elapsedMs: number): ProviderError {
  if (!(e instanceof ApiError)) return redactError(errorFromTransport(provider, e, timeoutMs, endpoint, elapsedMs), secret);
  let body: unknown = null;
  try {
    body = JSON.parse(e.message);
  } catch {
    // not JSON: keep the message as the provider's words
  }
  const err = isObj(body) && isObj(body.error) ? body.error : {};
  const mapped = errorFromHttp({
    provider,
    status: e.status,
    message: typeof err.message === 'string' && err.message ? err.message : e.message,
    type: typeof err.status === 'string' ? err.status : null,
    retryAfterS: retryDelayS(err.details),
  });
  return redactError(mapped, secret);
}

/**
 * Gemini generateContent via @google/genai. Structured output is
 * `responseMimeType: application/json` with the reply schema as `responseJsonSchema`.
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
    // No retryOptions: the SDK then makes exactly one attempt.
    const client = new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl, timeout: req.timeoutMs } });
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const started = Date.now();
    let res: GenerateContentResponse;
    try {
      res = await client.models.generateContent({
        model: req.model,
        contents: req.messages
          .filter((m) => m.role !== 'system')
          .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
        config: {
          ...(system ? { systemInstruction: system } : {}),
          temperature: req.temperature,
          maxOutputTokens: req.maxTokens,
          responseMimeType: 'application/json',
          responseJsonSchema: plainJsonSchema(req.jsonSchema),
        },
      });
    } catch (e) {
      throw errorFromGenai(this.name, e, req.timeoutMs, baseUrl, apiKey, Date.now() - started);
    }
    const candidate = res.candidates?.[0];
    const text = (candidate?.content?.parts ?? [])
      .filter((p) => typeof p.text === 'string' && !p.thought)
      .map((p) => p.text)
      .join('');
    const u = res.usageMetadata;
    return {
      text,
      parsed: parseJsonReply(text),
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
    };
  }
}
