import type { Logger } from '@nestjs/common';
import type { OutboxDispatcher } from '@roundtable/service';
import { within } from './within';

/**
 * How long a reply waits on Redis after its commit, for the job's send (and a submit's event
 * publish beside it): past it the request is still stored and the reply goes; the outbox sweeper
 * sends the job once Redis answers again. Well inside the 2 s a write must answer in with Redis
 * gone (ioredis would hold the commands until it is back).
 */
export const REDIS_WAIT_MS = 1000;

/**
 * Sends the outbox rows a write just committed, waiting at most REDIS_WAIT_MS: submit, cancel,
 * resume and appeal all end this way, so none of them hangs on a Redis that is away. A send
 * that fails or is late stays in the outbox (the row is the promise), and is logged.
 */
export async function sendAfterCommit(outbox: OutboxDispatcher, ids: number[], log: Logger, what: string): Promise<void> {
  const late = (e: Error) => log.warn(`${what} left in the outbox for the sweeper: ${e.message}`);
  try {
    const sent = await within(outbox.dispatch(ids), REDIS_WAIT_MS, late);
    if (!sent.done) log.warn(`Redis did not take ${what} within ${REDIS_WAIT_MS} ms; the outbox sweeper sends it once Redis answers`);
  } catch (e) {
    late(e as Error);
  }
}
