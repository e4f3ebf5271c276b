import { Logger, type INestApplicationContext } from '@nestjs/common';

const SIGNAL_EXIT: Record<'SIGTERM' | 'SIGINT', number> = { SIGTERM: 143, SIGINT: 130 };

/**
 * Starts a service and owns its end.
 *
 * A start-up failure (bad environment, unmigrated database, Redis down, a queue without a
 * handler) becomes one clear line on stderr and exit 1, instead of a stack trace and a process
 * that hangs on open handles.
 *
 * SIGTERM or SIGINT: Nest's shutdown hooks (enableShutdownHooks) close the application, in which
 * the @nestjs/bullmq workers stop taking jobs and wait for the running ones, the ops server
 * answers /readyz 503, and connections close last. `useProcessExit` makes an orderly stop exit 0
 * (by default Nest re-raises the signal, so it would look like a kill, exit 143, to Kubernetes,
 * Compose and tests alike). What Nest leaves out is said here: the line when the stop starts, its
 * duration, and a second signal during the drain exiting at once (Nest ignores it).
 */
export function runService(name: string, start: () => Promise<INestApplicationContext>): void {
  start()
    .then((app) => {
      const log = new Logger(name);
      let started = 0;
      const onSignal = (signal: 'SIGTERM' | 'SIGINT') => {
        if (started) {
          log.warn(`${signal} again while shutting down: exiting now; running jobs are left to the stalled-job check`);
          process.exit(SIGNAL_EXIT[signal]);
        }
        started = Date.now();
        log.log(`${signal}: shutting down (no new jobs; running jobs finish first)`);
      };
      // Before Nest's own listeners, so the line comes first.
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      process.on('exit', (code) => {
        if (started && code === 0) log.log(`stopped in ${Date.now() - started} ms`);
      });
      app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
    })
    .catch((e: Error) => {
      process.stderr.write(`${name}: cannot start: ${e.message}\n`);
      process.exit(1);
    });
}
