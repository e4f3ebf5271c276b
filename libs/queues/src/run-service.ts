import { Logger } from '@nestjs/common';

/** What a started service hands back: Nest's application (HTTP or context) closes its workers, servers and connections. */
export interface Closable {
  close(): Promise<void>;
}

const SIGNAL_EXIT: Record<'SIGTERM' | 'SIGINT', number> = { SIGTERM: 143, SIGINT: 130 };

/**
 * Starts a service and owns its end.
 *
 * A start-up failure (bad environment, unmigrated database, Redis down) becomes one clear line on
 * stderr and exit 1, instead of a stack trace and a process that hangs on open handles.
 *
 * SIGTERM or SIGINT closes the application gracefully, then exits 0: Nest runs its shutdown hooks,
 * in which workers stop taking jobs and wait for the running ones (BullMQ Worker.close()), the ops
 * server answers /readyz 503, and connections close last. Nest's own enableShutdownHooks() is not
 * used: it re-raises the signal after closing, so an orderly stop would look like a kill (exit 143)
 * to Kubernetes, Compose and tests alike. A second signal during the drain exits at once.
 */
export function runService(name: string, start: () => Promise<Closable>): void {
  start()
    .then((app) => {
      const log = new Logger(name);
      let closing = false;
      const onSignal = (signal: 'SIGTERM' | 'SIGINT') => {
        if (closing) {
          log.warn(`${signal} again while shutting down: exiting now; running jobs are left to the stalled-job check`);
          process.exit(SIGNAL_EXIT[signal]);
        }
        closing = true;
        const started = Date.now();
        log.log(`${signal}: shutting down (no new jobs; running jobs finish first)`);
        app.close().then(
          () => {
            log.log(`stopped in ${Date.now() - started} ms`);
            process.exit(0);
          },
          (e: Error) => {
            log.error(`shutdown failed: ${e.message}`, e.stack);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    })
    .catch((e: Error) => {
      process.stderr.write(`${name}: cannot start: ${e.message}\n`);
      process.exit(1);
    });
}
