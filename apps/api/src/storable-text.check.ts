import { LONE_SURROGATE_SOURCE, type ConfigIssue } from '@roundtable/contracts';

/** A UTF-16 surrogate without its other half: valid in a JS string, not in UTF-8, so not in Postgres. */
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE);

function problemOf(s: string): string | null {
  if (s.includes('\u0000')) return 'holds a NUL character (\\u0000), which Postgres cannot store; remove it';
  if (LONE_SURROGATE.test(s)) return 'holds a lone UTF-16 surrogate (half of an emoji or other character, e.g. \\ud800), which is not text in UTF-8; send the whole character';
  return null;
}

/**
 * Strings (values and keys) that a jsonb or text column refuses: the config is stored as it
 * came, so either would fail the insert as a 500. Walked with a stack, not recursion: the body
 * parsers already cap the depth, and this does not rely on it.
 */
export function unstorableTextIssues(value: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const stack: { v: unknown; path: string[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = problemOf(v);
      if (problem) issues.push({ path: path.join('.'), message: problem });
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const keyProblem = problemOf(k);
        if (keyProblem) issues.push({ path: [...path, JSON.stringify(k)].join('.'), message: `the key ${keyProblem}` });
        stack.push({ v: child, path: [...path, k] });
      }
    }
  }
  return issues;
}
