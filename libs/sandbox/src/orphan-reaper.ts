import { dockerEndpoint, DockerEndpoint } from './docker-client';
import { ContainerOwner, currentOwner, parseOwner, SANDBOX_LABELS } from './container-labels';

export interface ReapOptions {
  /** Remove every labelled container, including ones a live test-runner is still using. */
  all?: boolean;
  now?: number;
  /** Who "we" are; a test stands in for a later process with this. */
  self?: ContainerOwner;
  isAlive?: (pid: number) => boolean;
}

/**
 * Which sandbox containers nobody will clean up: those whose deadline has passed (the run that
 * owned them is over, however it ended), and those created on this host by an earlier
 * test-runner process that is gone (or whose pid we now hold). A container of another live
 * test-runner sharing the engine is left alone.
 */
export function isOrphan(labels: Record<string, string> | undefined, opts: Required<Omit<ReapOptions, 'all'>>): boolean {
  const deadline = Number(labels?.[SANDBOX_LABELS.deadline]);
  if (!Number.isFinite(deadline) || deadline < opts.now) return true;
  const owner = parseOwner(labels?.[SANDBOX_LABELS.owner]);
  if (!owner) return true;
  if (owner.host !== opts.self.host || owner.instance === opts.self.instance) return false;
  return owner.pid === opts.self.pid || !opts.isAlive(owner.pid);
}

/** Removes orphaned sandbox containers (see isOrphan); returns their ids. Called at test-runner start and periodically. */
export async function reapOrphans(
  endpoint: DockerEndpoint = dockerEndpoint(process.env.DOCKER_HOST),
  opts: ReapOptions = {},
): Promise<string[]> {
  const settings = { now: opts.now ?? Date.now(), self: opts.self ?? currentOwner(), isAlive: opts.isAlive ?? pidAlive };
  const containers = await endpoint.client.listContainers({ all: true, filters: { label: [`${SANDBOX_LABELS.marker}=1`] } });
  const removed: string[] = [];
  for (const c of containers) {
    if (!opts.all && !isOrphan(c.Labels, settings)) continue;
    try {
      await endpoint.client.getContainer(c.Id).remove({ force: true, v: true });
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      // 404: gone meanwhile; 409: removal already in progress. Either way it is going.
      if (status !== 404 && status !== 409) throw err;
    }
    removed.push(c.Id);
  }
  return removed;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is just not ours.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
