import { ExpressAdapter } from '@bull-board/express';
// The root module alone: @bull-board/nestjs's index also loads its feature module, which requires
// @nestjs/bull-shared 12, an ES module jest's CommonJS runtime cannot load (esbuild's bundle could).
// What forFeature does (add a registered queue to the board) QueueBoard does, with the agent queues.
import { BullBoardRootModule } from '@bull-board/nestjs/dist/bull-board.root-module';
import type { DynamicModule } from '@nestjs/common';

/** Where the board is mounted; the bearer door (bearer-auth.middleware.ts) guards the same subtree. */
export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board through @bull-board/nestjs with the Express adapter. Mounted as Nest middleware at
 * init, so behind the doors createApiApp puts in front of every route first.
 */
export function bullBoardModule(): DynamicModule {
  return BullBoardRootModule.forRoot({ route: BULL_BOARD_PATH, adapter: ExpressAdapter });
}
