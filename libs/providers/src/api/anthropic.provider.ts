import Anthropic from '@anthropic-ai/sdk';
import type { AnthropicProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderRequest } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { plainJsonSchema } from '../json/structured-schema';
import { readApiKey } from './api-key';
import { errorFromStainless } from './sdk-errors';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Tool names must match ^[a-zA-Z0-9_-]{1,64}$. */
export function replyToolName(schemaName: string): string {
  return `submit_${schemaName.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

/**
 * Anthropic Messages API. Structured output is one tool whose input schema is the reply
 * schema, with tool_choice forced to it: the tool_use block's input is the reply.
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
    const tool = replyToolName(req.schemaName);
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const started = Date.now();
    let data: Anthropic.Message;
    let requestId: string | null;
    try {
      const res = await client.messages
        .create({
          model: req.model,
          max_tokens: req.maxTokens,
          // No temperature: the Messages API deprecated it and @anthropic-ai/sdk 1.x no longer sends it.
          ...(system ? { system } : {}),
          messages: req.messages
            .filter((m) => m.role !== 'system')
            .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
          tools: [
            {
              name: tool,
              description: `Submit your reply as one ${req.schemaName} object. This is the only way to reply.`,
              input_schema: plainJsonSchema(req.jsonSchema) as Anthropic.Tool.InputSchema,
            },
          ],
          tool_choice: { type: 'tool', name: tool },
        })
        .withResponse();
      data = res.data;
      requestId = res.request_id ?? null;
    } catch (e) {
      throw errorFromStainless(this.name, e, req.timeoutMs, baseURL, apiKey, Date.now() - started);
    }
    const toolUse = data.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use' && b.name === tool);
    const prose = data.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('');
    const parsed = toolUse && toolUse.input !== null && typeof toolUse.input === 'object' ? toolUse.input : parseJsonReply(prose);
    const u = data.usage;
    const cacheRead = u.cache_read_input_tokens ?? 0;
    return {
      text: toolUse ? JSON.stringify(toolUse.input) : prose,
      parsed,
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
    };
  }
}
