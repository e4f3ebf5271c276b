import Docker from 'dockerode';

export interface DockerEndpoint {
  client: Docker;
  /** Where the engine is expected, for error messages: `unix:///var/run/docker.sock`, `tcp://host:2375`. */
  address: string;
}

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/**
 * A client for DOCKER_HOST (`unix:///path` or `tcp://host:port`), or the default socket.
 * Parsed here rather than left to dockerode's own environment lookup so that the address in
 * an "unreachable" message is the one actually tried.
 */
export function dockerEndpoint(dockerHost?: string): DockerEndpoint {
  const host = dockerHost?.trim() || `unix://${DEFAULT_DOCKER_SOCKET}`;
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length) || DEFAULT_DOCKER_SOCKET;
    return { client: new Docker({ socketPath }), address: `unix://${socketPath}` };
  }
  if (host.startsWith('tcp://') || host.startsWith('http://')) {
    const url = new URL(host.replace(/^tcp:/, 'http:'));
    const port = url.port || '2375';
    return { client: new Docker({ protocol: 'http', host: url.hostname, port }), address: `tcp://${url.hostname}:${port}` };
  }
  throw new Error(`DOCKER_HOST ${JSON.stringify(host)} is not supported: use unix:///path/to/docker.sock or tcp://host:port`);
}
