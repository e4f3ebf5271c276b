import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * What a scripted reply can do instead of answering. HTTP faults answer in each wire's own
 * error shape; `hang` never answers; `malformed_json` answers with broken JSON as the model's
 * text; `malformed_body` answers 200 with a body that is not JSON; `empty` and `cancelled`
 * answer with no text; `reconnect` (codex) emits an error event, then completes normally;
 * `hang_ignoring_sigterm` (fake CLIs only) hangs like `hang`, but it and a helper it starts
 * ignore SIGTERM, as a CLI with a stuck child can: only a SIGKILL to its process group ends both.
 */
export const FAKE_FAULTS = [
  '401', '404', '429', '500', 'hang', 'malformed_json', 'malformed_body', 'empty', 'cancelled', 'usage_limit', 'reconnect',
  'hang_ignoring_sigterm',
] as const;
export type FakeFault = (typeof FAKE_FAULTS)[number];

/**
 * One scripted reply: the replay cassette's fields (`role`, `reply`, `expects`, `forbids`),
 * so a cassette file is a valid script, plus the fake server's own.
 */
export const FakeScriptEntry = z.object({
  /** The role this reply is for; `*` for any role. */
  role: z.string().min(1),
  reply: z.union([z.record(z.string(), z.unknown()), z.string()]).default(''),
  expects: z.array(z.string()).optional(),
  forbids: z.array(z.string()).optional(),
  /** Chosen by a substring of the prompt instead of by role order. */
  match: z.string().min(1).optional(),
  fault: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.enum(FAKE_FAULTS)).optional(),
  /**
   * Answer exactly this HTTP reply instead (a provider's real error body, its headers), in no
   * wire's shape: for the classification cases found against real providers.
   */
  http: z
    .object({
      status: z.number().int().min(200).max(599),
      headers: z.record(z.string(), z.string()).default({}),
      body: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
    })
    .optional(),
  /** For a 429: the retry-after the server sends, in seconds. */
  retry_after_s: z.number().nonnegative().default(1),
  /** For `hang`: how long before the connection is dropped (default: until the server closes). */
  hang_ms: z.number().int().positive().optional(),
  /**
   * For `hang_ignoring_sigterm`: the file the fake CLI writes its own pid and its helper's to
   * (one a line) once both ignore SIGTERM, so a test can check that neither outlived the kill.
   */
  pid_file: z.string().min(1).optional(),
  /**
   * A tool loop's turn: the tools the model calls, each wire answering in its own tool-call shape
   * (not streamed, except Anthropic's); `reply` is the text beside them, often ''. A missing id is
   * made up by the wires that carry ids (Anthropic, OpenAI); Gemini and Ollama then send none.
   */
  tool_calls: z
    .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}), id: z.string().min(1).optional() }))
    .optional(),
  /** How many requests this entry answers before the next one is used (e.g. three 500s). */
  times: z.number().int().positive().default(1),
  /** Reported token usage; approximated from text length (4 chars a token) when absent. */
  usage: z
    .object({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0), cached_input_tokens: z.number().int().min(0).default(0) })
    .optional(),
  /** The CLI envelopes' total_cost_usd. */
  cost_usd: z.number().nonnegative().optional(),
  /**
   * Fake CLIs in agent mode only: what the "agent" does to its working directory (the run's
   * worktree) before it replies: path → new content, or null to delete. Paths outside the
   * working directory are refused, as the real CLIs' sandboxes refuse them.
   */
  edits: z.record(z.string(), z.string().nullable()).optional(),
  /**
   * Fake CLIs only: the attack a CLI's child could make on its worker. Before replying it tries
   * to read /proc/<parent>/environ and /proc/<parent>/mem and puts what it got (the text, or
   * the errno code) in its reply, as `parent_probe` (an object reply) or appended (a text one).
   */
  probe_parent: z.boolean().optional(),
});
export type FakeScriptEntry = z.infer<typeof FakeScriptEntry>;
export type FakeScriptEntryInput = z.input<typeof FakeScriptEntry>;

export const FakeScript = z.object({ replies: z.array(FakeScriptEntry) });
export type FakeScript = z.infer<typeof FakeScript>;
export type FakeScriptInput = z.input<typeof FakeScript>;

export function parseFakeScript(input: unknown, origin = 'fake LLM script'): FakeScript {
  const parsed = FakeScript.safeParse(input);
  if (!parsed.success) {
    throw new Error(`${origin} is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** A script file, YAML or JSON (a replay cassette works as one). */
export function loadFakeScript(path: string): FakeScript {
  return parseFakeScript(parseYaml(readFileSync(path, 'utf8')), `fake LLM script ${path}`);
}
