import type { RunEventEnvelope } from '@roundtable/contracts';
import type { Style } from './terminal';

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** `events`: every event as `<sequence> <type> key=value …`, nulls left out; --json gives the envelopes. */
export function formatEventLine(ev: RunEventEnvelope, style: Style): string {
  const fields = Object.entries(ev.payload ?? {})
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`);
  return [style.dim(String(ev.sequence)), style.cyan(ev.type), ...fields].join(' ');
}
