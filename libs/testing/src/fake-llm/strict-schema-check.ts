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
