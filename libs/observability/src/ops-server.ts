import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readinessAnswer, type Readiness } from './readiness';
import type { RoundtableMetrics } from './roundtable-metrics';

export interface OpsServerOptions {
  /** 0: any free port (the chosen one is on `port` after start). */
  port: number;
  /** Default: every interface, so kubelet and Prometheus reach it on the pod's address. */
  host?: string;
  /** checkReadiness over the service's probes, or TerminusReadiness.check from its Nest context. */
  readiness: () => Promise<Readiness>;
  metrics: RoundtableMetrics;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * A worker's operations port (HEALTH_PORT): `/healthz` (the process serves), `/readyz` (its
 * dependencies answer; 503 names the one that does not, and every request after shutdown began),
 * `/metrics` (Prometheus). Plain node:http, no auth: it belongs on an internal port that only the
 * kubelet and Prometheus reach, never behind an ingress. Workers have no other HTTP surface: they
 * are Nest application contexts, and an HTTP adapter (express and Nest's router) in each worker
 * for three fixed routes would be more to run and to secure than this. The answers are the api's
 * (readinessAnswer), computed through terminus's indicators.
 */
export class OpsServer {
  private draining = false;
  /** The port listened on (the one chosen, when started with 0). */
  port = 0;

  private constructor(private readonly server: Server) {}

  static async start(opts: OpsServerOptions): Promise<OpsServer> {
    const server = createServer((req, res) => {
      handle(req, res).catch((e: Error) => {
        if (!res.headersSent) json(res, 500, { error: 'internal_error', message: e.message });
        else res.destroy();
      });
    });
    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method_not_allowed', message: `${req.method} is not served here; use GET` });
      if (path === '/healthz') return json(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        const { statusCode, body } = readinessAnswer(ops.draining ? { ready: false, checks: {}, shuttingDown: true } : await opts.readiness());
        return json(res, statusCode, body);
      }
      if (path === '/metrics') {
        const { contentType, body } = await opts.metrics.scrape();
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(body);
        return;
      }
      json(res, 404, { error: 'not_found', message: `no route ${path}; this port serves /healthz, /readyz and /metrics` });
    };
    const ops = new OpsServer(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host, () => {
        server.off('error', reject);
        ops.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
    return ops;
  }

  /** From now on /readyz answers 503: the process is closing its workers. */
  markDraining(): void {
    this.draining = true;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
