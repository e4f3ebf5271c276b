/**
 * Waits for `work` at most `ms`: 'done' if it settled in time (its rejection is the caller's),
 * 'late' if not. A late `work` goes on; its later rejection is handed to `onLateError` rather
 * than left unhandled. For Redis calls on a request's path: ioredis queues a command while Redis
 * is away and would hold the reply until Redis is back.
 */
export async function within<T>(work: Promise<T>, ms: number, onLateError: (e: Error) => void): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const timeout = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => {
      late = true;
      resolve({ done: false });
    }, ms);
  });
  work.catch((e: Error) => {
    if (late) onLateError(e);
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
