import Anthropic from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { AnthropicProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderRequest } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { anthropicMessages, anthropicToolCalls, anthropicTools } from './anthropic-tools';
import { readApiKey } from './api-key';
import { safeDelta } from './delta-listener';
import { errorFromStainless } from './sdk-errors';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The reply schema as the Messages API's structured outputs take it: the SDK's own transform
 * (every object closed with `additionalProperties: false`; constraints the API cannot enforce,
 * such as minLength or minimum, moved into descriptions). The worker still validates the reply
 * against the zod schema, so nothing is lost.
 */
export function anthropicOutputSchema(jsonSchema: Record<string, unknown>): Record<string, unknown> {
  return transformJSONSchema(plainJsonSchema(jsonSchema)) as Record<string, unknown>;
}

/**
 * Anthropic Messages API. Structured output is `output_config.format` (a JSON schema): the
 * reply is one text block holding the JSON object. Not a forced tool: current models
 * (Claude Sonnet 5.5, Opus 5.5) think by default and answer a forced tool_choice with a 400.
 * A tool loop's turn (`req.tools`) offers the tools natively with tool_choice auto, unstreamed.
 */
export class AnthropicProvider implements Provider {
  readonly type = 'anthropic';

  constructor(
    readonly name: string,
    private readonly cfg: z.infer<typeof AnthropicProviderConfig>,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async run(req: ProviderRequest): Promise<Completion> {
    const apiKey = readApiKey(this.name, this.cfg.api_key_env, this.env);
    const baseURL = this.cfg.base_url ?? ANTHROPIC_DEFAULT_BASE_URL;
    const client = new Anthropic({ apiKey, baseURL, maxRetries: 0, timeout: req.timeoutMs, openTelemetry: false });
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const started = Date.now();
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: req.model,
      max_tokens: req.maxTokens,
      // No temperature: the Messages API deprecated it and @anthropic-ai/sdk 1.x no longer sends it.
      ...(system ? { system } : {}),
      messages: anthropicMessages(req.messages),
      // A tool loop's turn offers the tools and lets the model choose; the reply schema is not asked for then.
      ...(req.tools
        ? { tools: anthropicTools(req.tools), tool_choice: { type: 'auto' } }
        : { output_config: { format: { type: 'json_schema', schema: anthropicOutputSchema(req.jsonSchema) } } }),
    };
    const onDelta = req.tools ? undefined : req.onDelta;
    let data: Anthropic.Message;
    let requestId: string | null;
    try {
      const res = onDelta ? await this.streamed(client, params, onDelta, req.timeoutMs) : await client.messages.create(params).withResponse();
      data = res.data;
      requestId = res.request_id ?? null;
    } catch (e) {
      throw errorFromStainless(this.name, e, req.timeoutMs, baseURL, apiKey, Date.now() - started);
    }
    // Thinking blocks, when the model thought, come first; the reply is the text.
    const text = data.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('');
    const u = data.usage;
    const cacheRead = u.cache_read_input_tokens ?? 0;
    return {
      text,
      parsed: req.tools ? null : parseJsonReply(text),
      usage: {
        inputTokens: u.input_tokens + cacheRead + (u.cache_creation_input_tokens ?? 0),
        outputTokens: u.output_tokens,
        cachedInputTokens: cacheRead,
      },
      provider: this.name,
      model: data.model ?? req.model,
      latencyMs: Date.now() - started,
      requestId: requestId ?? data.id ?? null,
      stopReason: data.stop_reason ?? null,
      reportedCostUsd: null,
      raw: data,
      billing: 'api',
      ...(req.tools ? { toolCalls: anthropicToolCalls(this.name, data.content), native: { type: 'anthropic', content: data.content } } : {}),
    };
  }

  /**
   * The same request as a stream (the SDK's MessageStream): each text delta goes to onDelta,
   * and the message it accumulates is the one `create` would have returned. Thinking deltas
   * are not passed on (the reply is the text). The whole stream is bounded by the timeout,
   * not only its first byte; an abort at the deadline maps to TIMEOUT as a slow reply does.
   */
  private async streamed(
    client: Anthropic,
    params: Anthropic.MessageCreateParamsNonStreaming,
    onDelta: (text: string) => void,
    timeoutMs: number,
  ): Promise<{ data: Anthropic.Message; request_id: string | null | undefined }> {
    const stream = client.messages.stream(params, { signal: AbortSignal.timeout(timeoutMs) });
    const delta = safeDelta(onDelta);
    stream.on('text', (text) => delta(text));
    // finalMessage rejects with the SDK's APIError (an HTTP failure) as `create` does.
    const { parsed_output: _parsed, ...data } = await stream.finalMessage();
    return { data: data as Anthropic.Message, request_id: stream.request_id };
  }
}
