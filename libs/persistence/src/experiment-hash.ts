import { createHash } from 'node:crypto';
import { canonicalJson } from '@roundtable/contracts';

/**
 * A preregistration's hash: sha256 (hex) of its canonical JSON (libs/contracts canonicalJson),
 * so key order and formatting do not change it and any changed value does. `experiments.prereg_hash`
 * holds it from the moment the plan is locked; a stored plan that no longer hashes to it was altered.
 */
export function preregistrationHash(prereg: unknown): string {
  return createHash('sha256').update(canonicalJson(prereg)).digest('hex');
}
