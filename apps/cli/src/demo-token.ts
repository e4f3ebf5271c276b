import { splitApiTokenEntry } from '@roundtable/contracts';

/**
 * Which token `npm run demo` / `npm run workbench` (scripts/run-demo.mjs) sends, and how it says so:
 * by the token's name, never its secret. ROUNDTABLE_TOKEN first (as the CLI reads it); else, when
 * API_TOKENS is set in the same shell (the api the script starts reads it too), the first entry
 * that may submit a run (write or approve); else none, for an open api.
 */
export type DemoToken =
  | { token: string; from: 'ROUNDTABLE_TOKEN' | 'API_TOKENS'; name: string | null }
  | { token: null; problem: string | null };

/** API_TOKENS' entries (`name:token:role[:team]`), split as the api splits them. */
function entriesOf(apiTokens: string) {
  return apiTokens
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .flatMap((entry) => splitApiTokenEntry(entry) ?? []);
}

export function chooseDemoToken(env: Record<string, string | undefined>): DemoToken {
  const entries = entriesOf(env.API_TOKENS ?? '');
  const given = env.ROUNDTABLE_TOKEN?.trim();
  if (given) return { token: given, from: 'ROUNDTABLE_TOKEN', name: entries.find((e) => e.token === given)?.name ?? null };
  if (!env.API_TOKENS?.trim()) return { token: null, problem: null };
  const writer = entries.find((e) => e.role === 'write' || e.role === 'approve');
  if (writer) return { token: writer.token, from: 'API_TOKENS', name: writer.name };
  return { token: null, problem: 'API_TOKENS holds no write or approve token, and ROUNDTABLE_TOKEN is not set: the demo cannot submit its project; set ROUNDTABLE_TOKEN to a write token' };
}

/** The line the demo prints about it; it names the token, never shows it. */
export function describeDemoToken(choice: DemoToken): string {
  if (choice.token === null) return choice.problem ?? 'no token sent (API_TOKENS and ROUNDTABLE_TOKEN unset: the api is open on loopback)';
  if (choice.from === 'ROUNDTABLE_TOKEN') {
    return `sending the token in ROUNDTABLE_TOKEN${choice.name ? ` (API_TOKENS names it "${choice.name}")` : ' (a name API_TOKENS in this shell does not hold; the api will say whether it knows it)'}`;
  }
  return `sending the API_TOKENS token "${choice.name}" (the first write token there; set ROUNDTABLE_TOKEN to send another)`;
}
