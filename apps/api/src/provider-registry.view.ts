import { agentQueueName, type CliProbe, EVERY_PROVIDER, type ProviderWorkerRecord } from '@roundtable/contracts';
import type { JobProducer } from '@roundtable/queues';
import type { ProvidersReply } from '@roundtable/contracts';

type Provider = ProvidersReply['providers'][number];

/** A CLI found anywhere counts as found; the first version reported is shown. */
function mergeClis(workers: ProviderWorkerRecord[]): Record<string, CliProbe> {
  const out: Record<string, CliProbe> = {};
  for (const w of workers) {
    for (const [cli, p] of Object.entries(w.clis)) {
      if (!p) continue;
      const had = out[cli];
      out[cli] = { found: Boolean(had?.found || p.found), version: had?.version ?? p.version };
    }
  }
  return out;
}

function mergeKeys(workers: ProviderWorkerRecord[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const w of workers) for (const [k, set] of Object.entries(w.keys)) out[k] = Boolean(out[k] || set);
  return out;
}

/** GET /v1/providers: per provider a live worker names, who serves it, with which keys and CLIs, and its queue's depth. */
export async function providersView(workers: ProviderWorkerRecord[], producer: JobProducer): Promise<ProvidersReply> {
  const names = [...new Set(workers.flatMap((w) => w.providers))].sort();
  const providers = await Promise.all(
    names.map(async (name): Promise<Provider> => {
      const serving = workers.filter((w) => w.providers.includes(name) || w.providers.includes(EVERY_PROVIDER));
      let queue: Provider['queue'] = null;
      if (name !== EVERY_PROVIDER) {
        const c = await producer.queue(agentQueueName(name)).getJobCounts('waiting', 'active', 'delayed');
        queue = { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0 };
      }
      return {
        name,
        workers: serving.map((w) => w.worker_id),
        keys: mergeKeys(serving),
        clis: mergeClis(serving),
        concurrency: serving.reduce((n, w) => n + w.concurrency, 0),
        queue,
      };
    }),
  );
  return { providers, workers };
}
