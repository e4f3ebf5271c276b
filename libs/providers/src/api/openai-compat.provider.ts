import OpenAI from 'openai';
import type { OpenAiCompatProviderConfig } from '@roundtable/contracts';
import type { z } from 'zod';
import type { Completion, Provider, ProviderRequest } from '../provider';
import { ProviderError } from '../provider';
import { parseJsonReply } from '../json/json-reply';
import { dropNullOptionals, plainJsonSchema, strictJsonSchema } from '../json/structured-schema';
import { readApiKey } from './api-key';
import { streamedCompletion } from './openai-stream';
import { openaiToolCalls, openaiTools, toChat } from './openai-tools';
import { errorFromStainless } from './sdk-errors';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

type Params = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/** response_format names must match ^[a-zA-Z0-9_-]{1,64}$. */
const formatName = (schemaName: string) => schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'reply';

/** The instruction that replaces strict mode when a server refuses it. */
export function schemaInstruction(schemaName: string, schema: Record<string, unknown>): string {
  return (
    `Reply with exactly one JSON object, a ${schemaName}, and nothing else (no prose, no code fence). ` +
    `It must validate against this JSON schema:\n${JSON.stringify(plainJsonSchema(schema))}`
  );
}

/**
 * Request changes a server can ask for with a 400, each tried once. None of these are
 * billed (the request was refused before generation), so this is not a retry behind the
 * caller's back: it is finding the dialect this server speaks.
 */
interface Downgrade {
  name: string;
  applies: (status: number, message: string, params: Params) => boolean;
  apply: (params: Params, req: ProviderRequest) => Params;
}
const DOWNGRADES: Downgrade[] = [
  {
    // Models without strict structured output: ask for a JSON object and put the schema in the prompt.
    name: 'json_object',
    applies: (status, msg, p) => (status === 400 || status === 422) && p.response_format?.type === 'json_schema' && /json_schema|strict|response_format/i.test(msg),
    apply: (p, req) => ({
      ...p,
      response_format: { type: 'json_object' },
      messages: withSchemaInstruction(p.messages, req),
    }),
  },
  {
    // Reasoning models accept only the default temperature.
    name: 'default_temperature',
    applies: (status, msg, p) => status === 400 && p.temperature !== undefined && /temperature/i.test(msg),
    apply: ({ temperature: _t, ...p }) => p,
  },
  {
    // Older OpenAI-compatible servers know only max_tokens.
    name: 'max_tokens',
    applies: (status, msg, p) => (status === 400 || status === 422) && p.max_completion_tokens != null && /max_completion_tokens/i.test(msg),
    apply: ({ max_completion_tokens, ...p }) => ({ ...p, max_tokens: max_completion_tokens }),
  },
];

function withSchemaInstruction(messages: Params['messages'], req: ProviderRequest): Params['messages'] {
  const firstNonSystem = messages.findIndex((m) => m.role !== 'system');
  const at = firstNonSystem === -1 ? messages.length : firstNonSystem;
  const instruction = { role: 'system' as const, content: schemaInstruction(req.schemaName, req.jsonSchema) };
  return [...messages.slice(0, at), instruction, ...messages.slice(at)];
}

/**
 * OpenAI chat completions, and anything that speaks them (xAI via base_url, vLLM, …).
 * Structured output is `json_schema` strict; a server that refuses strict mode gets
 * `json_object` with the schema in the system prompt. A tool loop's turn (`req.tools`) offers the
 * tools as functions with tool_choice auto, unstreamed.
 */
export class OpenAiCompatProvider implements Provider {
  readonly type = 'openai_compat';

  constructor(
    readonly name: string,
    private readonly cfg: z.infer<typeof OpenAiCompatProviderConfig>,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async run(req: ProviderRequest): Promise<Completion> {
    const apiKey = readApiKey(this.name, this.cfg.api_key_env, this.env);
    const baseURL = this.cfg.base_url ?? OPENAI_DEFAULT_BASE_URL;
    const client = new OpenAI({ apiKey, baseURL, maxRetries: 0, timeout: req.timeoutMs, organization: null, project: null });
    let params: Params = {
      model: req.model,
      messages: req.messages.map(toChat),
      temperature: req.temperature,
      max_completion_tokens: req.maxTokens,
      // A tool loop's turn offers the tools and lets the model choose; the reply schema is not asked for then.
      ...(req.tools
        ? { tools: openaiTools(req.tools), tool_choice: 'auto' as const }
        : {
            response_format: {
              type: 'json_schema' as const,
              json_schema: { name: formatName(req.schemaName), schema: strictJsonSchema(req.jsonSchema), strict: true },
            },
          }),
    };
    const onDelta = req.tools ? undefined : req.onDelta;
    const applied: string[] = [];
    const started = Date.now();
    for (;;) {
      let res: { data: OpenAI.Chat.ChatCompletion; request_id: string | null };
      try {
        res = onDelta ? await streamedCompletion(client, params, onDelta, req.timeoutMs) : await client.chat.completions.create(params).withResponse();
      } catch (e) {
        const mapped = errorFromStainless(this.name, e, req.timeoutMs, baseURL, apiKey, Date.now() - started);
        const down = DOWNGRADES.find((d) => !applied.includes(d.name) && mapped.httpStatus !== null && d.applies(mapped.httpStatus, mapped.message, params));
        if (!down) throw mapped;
        applied.push(down.name);
        params = down.apply(params, req);
        continue;
      }
      // Outside the try: a reply the adapter refuses (no choices, broken tool arguments) is its own error, not a transport one.
      return this.completion(req, res.data, res.request_id, started, applied);
    }
  }

  private completion(req: ProviderRequest, data: OpenAI.Chat.ChatCompletion, requestId: string | null, started: number, applied: string[]): Completion {
    const choice = data.choices?.[0];
    if (!choice) throw new ProviderError('PROVIDER_ERROR', `${this.name}: the reply has no choices`, true);
    const content = choice.message?.content ?? '';
    const refusal = choice.message?.refusal ?? null;
    const json = req.tools ? null : parseJsonReply(content);
    const u = data.usage;
    return {
      text: content || refusal || '',
      parsed: json === null ? null : dropNullOptionals(json, req.jsonSchema),
      usage: {
        inputTokens: u?.prompt_tokens ?? 0,
        outputTokens: u?.completion_tokens ?? 0,
        cachedInputTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
      },
      provider: this.name,
      model: data.model ?? req.model,
      latencyMs: Date.now() - started,
      requestId: requestId ?? data.id ?? null,
      stopReason: refusal ? 'refusal' : (choice.finish_reason ?? null),
      reportedCostUsd: null,
      raw: applied.length ? { ...data, roundtable_downgrades: applied } : data,
      billing: 'api',
      ...(req.tools ? { toolCalls: openaiToolCalls(this.name, choice.message) } : {}),
    };
  }
}
