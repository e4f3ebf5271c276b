// Runs the real `eventsource` package (ESM-only since v3) in a worker thread, where Node's own
// loader imports it; jest's module loader cannot (see event-source-follower.ts). Reports
// everything the EventSource does to the parent and closes it when told to.
import { parentPort, workerData } from 'node:worker_threads';
import { EventSource } from 'eventsource';

const { url, types } = workerData;
const es = new EventSource(url);
const post = (m) => parentPort.postMessage({ ...m, readyState: es.readyState, at: Date.now() });

es.addEventListener('open', () => post({ kind: 'open' }));
es.addEventListener('error', (e) => post({ kind: 'error', code: e.code ?? null, message: e.message ?? null }));
es.addEventListener('message', (m) => post({ kind: 'event', type: 'message', id: m.lastEventId, data: m.data }));
for (const type of types) {
  es.addEventListener(type, (m) => post({ kind: 'event', type: m.type, id: m.lastEventId, data: m.data }));
}
parentPort.on('message', (m) => {
  if (m === 'close') {
    es.close();
    post({ kind: 'closed' });
    parentPort.close();
  }
});
