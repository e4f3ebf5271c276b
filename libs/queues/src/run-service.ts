/**
 * Starts a service and turns a start-up failure (bad environment, unmigrated database,
 * Redis down) into one clear line on stderr and a non-zero exit, instead of a stack trace
 * and a process that hangs on open handles.
 */
export function runService(name: string, start: () => Promise<unknown>): void {
  start().catch((e: Error) => {
    process.stderr.write(`${name}: cannot start: ${e.message}\n`);
    process.exit(1);
  });
}
