import net, { AddressInfo, Socket } from 'node:net';

/**
 * A TCP proxy in front of a service, so a test can cut every open connection the way a
 * network drop or a load balancer restart would, and see what each new connection asked
 * for (its request head), e.g. the Last-Event-ID of an EventSource's reconnect.
 */
export interface TcpProxy {
  port: number;
  url: string;
  /** The head (up to the blank line) of every request, in the order they came (bodies with Content-Length skipped; chunked bodies are not parsed). */
  requests: string[];
  /** Destroys every connection open now (both sides); new connections still go through. */
  cut(): void;
  /** The service gone: cuts every connection and closes each new one at once, until restore(). The port stays the proxy's. */
  takeDown(): void;
  /** New connections go through again. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const requests: string[] = [];
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    open.add(client);
    open.add(upstream);
    // Requests on a keep-alive connection follow each other: read each head, skip its body.
    let buffered = '';
    let bodyLeft = 0;
    client.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (;;) {
        if (bodyLeft > 0) {
          const skip = Math.min(bodyLeft, buffered.length);
          buffered = buffered.slice(skip);
          bodyLeft -= skip;
          if (bodyLeft > 0) return;
        }
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        requests.push(head);
        bodyLeft = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0);
        buffered = buffered.slice(end + 4);
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    cut() {
      for (const s of [...open]) s.destroy();
      open.clear();
    },
    takeDown() {
      down = true;
      for (const s of [...open]) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close() {
      for (const s of [...open]) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
