/**
 * The two rules of OpenAI strict structured output that a schema fails most often (and that
 * codex --output-schema inherits): every object has `additionalProperties: false`, and lists
 * every one of its properties in `required`. Returns OpenAI-style words for the first breach.
 */
export function strictSchemaViolation(schema: unknown, name = 'response'): string | null {
  const walk = (node: unknown, at: string[]): string | null => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) {
        const bad = walk(n, [...at, String(i)]);
        if (bad) return bad;
      }
      return null;
    }
    if (node === null || typeof node !== 'object') return null;
    const s = node as Record<string, unknown>;
    const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'));
    const ctx = `context=(${at.map((p) => `'${p}'`).join(', ')})`;
    if (isObject) {
      if (s.additionalProperties !== false) {
        return `Invalid schema for response_format '${name}': In ${ctx}, 'additionalProperties' is required to be supplied and to be false.`;
      }
      const props = s.properties && typeof s.properties === 'object' ? Object.keys(s.properties) : [];
      const required = Array.isArray(s.required) ? s.required : [];
      const missing = props.find((p) => !required.includes(p));
      if (missing) {
        return `Invalid schema for response_format '${name}': In ${ctx}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
      }
    }
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && v && typeof v === 'object') {
        for (const [p, ps] of Object.entries(v)) {
          const bad = walk(ps, [...at, 'properties', p]);
          if (bad) return bad;
        }
      } else if (typeof v === 'object') {
        const bad = walk(v, [...at, k]);
        if (bad) return bad;
      }
    }
    return null;
  };
  return walk(schema, []);
}

/** The JSON Schema keywords Anthropic structured outputs (`output_config.format`) take. */
const ANTHROPIC_KEYWORDS = new Set([
  'type', 'enum', 'const', 'anyOf', 'allOf', '$ref', '$defs', 'description', 'title',
  'properties', 'additionalProperties', 'required', 'format', 'items', 'minItems',
]);

/**
 * What the Messages API answers a structured-output schema it cannot enforce with: an object
 * that is not closed (`additionalProperties: false`), or a keyword outside the supported set
 * (minLength, minimum, pattern … belong in descriptions). Null when the schema is accepted.
 */
export function anthropicSchemaViolation(schema: unknown): string | null {
  const walk = (node: unknown, at: string): string | null => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
    const s = node as Record<string, unknown>;
    for (const k of Object.keys(s)) {
      if (!ANTHROPIC_KEYWORDS.has(k)) return `output_config.format.schema: ${at || 'root'}: keyword '${k}' is not supported`;
    }
    if (s.type === 'object' && s.additionalProperties !== false) {
      return `output_config.format.schema: ${at || 'root'}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
    }
    const children: [string, unknown][] = [];
    if (s.properties && typeof s.properties === 'object') for (const [p, v] of Object.entries(s.properties)) children.push([`${at}.properties.${p}`, v]);
    if (s.$defs && typeof s.$defs === 'object') for (const [p, v] of Object.entries(s.$defs)) children.push([`${at}.$defs.${p}`, v]);
    if (s.items !== undefined) children.push([`${at}.items`, s.items]);
    for (const k of ['anyOf', 'allOf'] as const) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((v, i) => children.push([`${at}.${k}.${i}`, v]));
    for (const [path, child] of children) {
      const bad = walk(child, path);
      if (bad) return bad;
    }
    return null;
  };
  return walk(schema, '');
}
