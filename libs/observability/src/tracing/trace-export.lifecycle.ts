import { OnApplicationShutdown } from '@nestjs/common';
import { shutdownTracing } from './start-tracing';

/**
 * Flushes the batched spans when Nest shuts the service down (SIGTERM, through runService's
 * shutdown hooks), so a stop loses none. By then the workers have closed (beforeApplicationShutdown),
 * so every job's span has ended.
 */
export class TraceExportLifecycle implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await shutdownTracing().catch(() => undefined); // an unreachable collector must not fail the stop
  }
}
