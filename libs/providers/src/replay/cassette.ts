import { readFileSync, statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ProviderError } from '../provider';

/**
 * A cassette: recorded replies, consumed in order per role. A reply with `match` counts among its
 * role's only for a prompt that contains that text, so one cassette can answer many tasks (an
 * eval's: each task's objective names its own reply). `expects` / `forbids` are
 * substrings the rendered prompt must / must not contain; they turn the anti-sycophancy
 * rules (the critic never sees who proposed, the validator never sees the argument) into
 * checks that fail a call instead of silently biasing a run.
 */
export const CassetteReply = z.object({
  role: z.string().min(1),
  reply: z.union([z.record(z.string(), z.unknown()), z.string()]),
  expects: z.array(z.string()).optional(),
  forbids: z.array(z.string()).optional(),
  match: z.string().min(1).optional(),
});
export type CassetteReply = z.infer<typeof CassetteReply>;
export const Cassette = z.object({ replies: z.array(CassetteReply) });
export type Cassette = z.infer<typeof Cassette>;

const cache = new Map<string, { mtimeMs: number; cassette: Cassette }>();

export function loadCassette(path: string): Cassette {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    throw new ProviderError('CASSETTE_INVALID', `replay cassette ${path} cannot be read`);
  }
  const hit = cache.get(path);
  if (hit && hit.mtimeMs === mtimeMs) return hit.cassette;
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ProviderError('CASSETTE_INVALID', `replay cassette ${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = Cassette.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ProviderError('CASSETTE_INVALID', `replay cassette ${path} is malformed: ${why}`);
  }
  cache.set(path, { mtimeMs, cassette: parsed.data });
  return parsed.data;
}
