/** `{{name}}` placeholders; names are snake_case identifiers, optional inner spaces tolerated. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export class MissingPlaceholderError extends Error {
  readonly code = 'PROMPT_PLACEHOLDER_MISSING';
  constructor(readonly placeholders: string[]) {
    super(`prompt template needs ${placeholders.map((p) => `{{${p}}}`).join(', ')} but no value was given`);
  }
}

/** Distinct placeholder names, in order of first appearance. */
export function templatePlaceholders(template: string): string[] {
  const seen = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) seen.add(m[1]);
  return [...seen];
}

/**
 * One pass: a value that itself contains `{{x}}` (an artifact quoting a template) is inserted
 * verbatim, never expanded, so model-written text cannot pull other context into a prompt.
 * A missing value is an error rather than an empty string: a silently blank section would
 * change what an agent sees without anyone noticing.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  const missing = templatePlaceholders(template).filter((name) => !Object.prototype.hasOwnProperty.call(values, name) || values[name] === undefined);
  if (missing.length > 0) throw new MissingPlaceholderError(missing);
  return template.replace(PLACEHOLDER, (_m, name: string) => values[name]);
}
