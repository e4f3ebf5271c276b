/**
 * Reshapes a zod-generated JSON schema for each provider's structured-output mechanism.
 * The worker still validates every reply against the zod schema, so dropping a constraint
 * a provider cannot express (minLength, default) loses nothing.
 */
type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** The schema without its `$schema` dialect marker, which several APIs refuse. */
export function plainJsonSchema(schema: Schema): Schema {
  const { $schema: _dialect, ...rest } = clone(schema);
  return rest;
}

/** Keywords OpenAI strict mode (and so `codex --output-schema`) rejects. */
const STRICT_UNSUPPORTED = new Set([
  '$schema', 'default', 'examples', 'minLength', 'maxLength', 'minProperties', 'maxProperties', 'uniqueItems',
  'contains', 'minContains', 'maxContains', 'patternProperties', 'unevaluatedProperties', 'unevaluatedItems',
  'propertyNames', 'dependentRequired', 'dependentSchemas', 'if', 'then', 'else', 'not',
]);
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

function allowsNull(s: Schema): boolean {
  const t = s.type;
  if (t === 'null' || (Array.isArray(t) && t.includes('null'))) return true;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.some((a) => isObj(a) && allowsNull(a))) return true;
  }
  return false;
}

function nullable(s: Schema): Schema {
  if (allowsNull(s)) return s;
  if (typeof s.type === 'string') {
    const out: Schema = { ...s, type: [s.type, 'null'] };
    if (Array.isArray(s.enum)) out.enum = [...s.enum, null];
    return out;
  }
  if (Array.isArray(s.type)) return { ...s, type: [...s.type, 'null'] };
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: [...s.anyOf, { type: 'null' }] };
  return { anyOf: [s, { type: 'null' }] };
}

function strictify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictify);
  if (!isObj(node)) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (STRICT_UNSUPPORTED.has(k)) continue;
    if (k === 'format' && !(typeof v === 'string' && STRICT_FORMATS.has(v))) continue;
    if (k === 'properties' && isObj(v)) {
      out.properties = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strictify(s)]));
    } else if (k === '$defs' || k === 'definitions') {
      out[k] = isObj(v) ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strictify(s)])) : v;
    } else if (k === 'oneOf') {
      // strict mode knows anyOf only; for disjoint alternatives the two mean the same
      out.anyOf = strictify(v);
    } else {
      out[k] = strictify(v);
    }
  }
  const isObjectSchema = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object')) || isObj(out.properties);
  if (isObjectSchema) {
    const props = isObj(out.properties) ? out.properties : {};
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(props).map(([p, s]) => [p, required.has(p) || !isObj(s) ? s : nullable(s)]),
    );
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

/**
 * OpenAI strict structured output (also what `codex --output-schema` demands): every object
 * closed with `additionalProperties: false`, every property required, an optional property
 * made nullable instead; unsupported keywords dropped. Undo the nullables with
 * `dropNullOptionals` before validating.
 */
export function strictJsonSchema(schema: Schema): Schema {
  return strictify(schema) as Schema;
}

function resolveRef(s: Schema, root: Schema): Schema {
  const ref = s.$ref;
  if (typeof ref !== 'string') return s;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = m ? root[m[1]] : undefined;
  const target = m && isObj(defs) ? defs[m[2]] : undefined;
  return isObj(target) ? target : s;
}

function dropNulls(value: unknown, schema: Schema, root: Schema): unknown {
  const s = resolveRef(schema, root);
  if (Array.isArray(value)) {
    return isObj(s.items) ? value.map((v) => dropNulls(v, s.items as Schema, root)) : value;
  }
  if (!isObj(value) || !isObj(s.properties)) return value;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const out: Schema = {};
  for (const [k, v] of Object.entries(value)) {
    const propSchema = (s.properties as Schema)[k];
    if (!isObj(propSchema)) {
      out[k] = v;
      continue;
    }
    if (v === null && !required.has(k) && !allowsNull(resolveRef(propSchema, root))) continue;
    out[k] = dropNulls(v, propSchema, root);
  }
  return out;
}

/**
 * Reverses strict mode's "optional → nullable": a null the original schema does not allow,
 * on a property it does not require, means "absent", so zod defaults apply as written.
 */
export function dropNullOptionals(value: unknown, originalSchema: Schema): unknown {
  return dropNulls(value, originalSchema, originalSchema);
}
