import type { FakeScript, FakeScriptEntry } from './fake-script';

/** The outcome of choosing a reply for one request. */
export interface ScriptTurn {
  /** The role read from the prompt, or null when it carries no marker. */
  role: string | null;
  /** This request's position among the requests of its role (0-based). */
  ordinal: number;
  /** Index of the chosen entry in the script, or null when none was available. */
  index: number | null;
  entry: FakeScriptEntry | null;
  /** Why there is no usable entry: exhausted script or a failed prompt guard. */
  error: string | null;
}

/**
 * A request's role, from its prompt: a line `role: <name>`, else the preamble's
 * "You are the <name>" (prompts/preamble.md opens with it).
 */
export function roleOfPrompt(prompt: string): string | null {
  const line = /^\s*role:\s*([a-z][a-z0-9_-]*)\s*$/im.exec(prompt);
  if (line) return line[1].toLowerCase();
  const preamble = /\bYou are the ([a-z][a-z0-9_-]*)\b/.exec(prompt);
  return preamble ? preamble[1] : null;
}

/**
 * Picks replies the way the replay cassette does: the Nth request of a role gets that role's
 * Nth entry (an entry with `times: k` answers k requests). An entry with `match` answers the
 * first request whose prompt contains it. A prompt with no role marker takes the next unused
 * entry in file order. Every request uses up its entry, faults included, so
 * "429, then a reply" is two entries.
 */
export class ScriptEngine {
  private readonly used: number[];
  private readonly perRole = new Map<string, number>();

  constructor(
    private readonly script: FakeScript,
    /** Uses of each entry and requests per role so far (the fake CLIs rebuild these from their log). */
    state?: { used?: number[]; perRole?: Record<string, number> },
  ) {
    this.used = script.replies.map((_, i) => state?.used?.[i] ?? 0);
    for (const [r, n] of Object.entries(state?.perRole ?? {})) this.perRole.set(r, n);
  }

  next(prompt: string): ScriptTurn {
    const role = roleOfPrompt(prompt);
    const ordinal = this.perRole.get(role ?? '') ?? 0;
    this.perRole.set(role ?? '', ordinal + 1);
    const free = (i: number) => this.used[i] < this.script.replies[i].times;
    const fits = (e: FakeScriptEntry) => role === null || e.role === role || e.role === '*';
    const replies = this.script.replies;
    let index = replies.findIndex((e, i) => free(i) && e.match !== undefined && prompt.includes(e.match) && fits(e));
    if (index === -1) index = replies.findIndex((e, i) => free(i) && e.match === undefined && fits(e));
    const label = role ?? '(no role marker)';
    if (index === -1) {
      const held = replies.filter((e) => role === null || e.role === role).length;
      return { role, ordinal, index: null, entry: null, error: `fake-llm: the script has no reply #${ordinal + 1} for role ${label} (it holds ${held})` };
    }
    this.used[index] += 1;
    const entry = replies[index];
    return { role, ordinal, index, entry, error: guardError(entry, prompt, label, ordinal) };
  }

  /** Uses of each entry so far. */
  usage(): number[] {
    return [...this.used];
  }
}

function guardError(entry: FakeScriptEntry, prompt: string, role: string, ordinal: number): string | null {
  for (const s of entry.expects ?? []) {
    if (!prompt.includes(s)) return `fake-llm: prompt guard failed for ${role} reply #${ordinal + 1}: the prompt does not contain expected "${s}"`;
  }
  for (const s of entry.forbids ?? []) {
    if (prompt.includes(s)) return `fake-llm: prompt guard failed for ${role} reply #${ordinal + 1}: the prompt contains forbidden "${s}"`;
  }
  return null;
}
