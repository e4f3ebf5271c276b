export interface RunLinks {
  self: string;
  events: string;
  report: string;
  calls: string;
}

/** Where a client goes next for a run; the same shape in every reply that names a run. */
export function runLinks(runId: string): RunLinks {
  const self = `/v1/runs/${runId}`;
  return { self, events: `${self}/events`, report: `${self}/report`, calls: `${self}/calls` };
}
