import { createRequire } from 'node:module';
import type { DestinationStream } from 'pino';
import type { MessageFormatFunc, prettyFactory as PrettyFactory } from 'pino-pretty';

/**
 * pino-pretty is a development dependency: the production image carries only the JSON logger.
 * It is loaded when LOG_FORMAT=text asks for it, by a name the bundle does not resolve at build
 * time (the image's build fails on a bundle that requires a package outside the production
 * dependencies), and from node_modules beside the code, as in a checkout.
 */
const PRETTY_PACKAGE = 'pino-pretty';

function loadPrettyFactory(): typeof PrettyFactory {
  try {
    return (createRequire(__filename)(PRETTY_PACKAGE) as { prettyFactory: typeof PrettyFactory }).prettyFactory;
  } catch (e) {
    throw new Error(
      `LOG_FORMAT=text needs ${PRETTY_PACKAGE}, a development dependency that is not installed here (${(e as Error).message.split('\n')[0]}): unset LOG_FORMAT (json is the default) or run from a checkout with its dev dependencies`,
    );
  }
}

/** `2026-01-02T03:04:05.000Z INFO  [api/RunsController] message  (run_… run_…-c1)`, then the stack if any. */
const houseLine: MessageFormatFunc = (log, messageKey, _levelLabel, { colors }) => {
  const level = String(log.level).toUpperCase().padEnd(5);
  const tint = log.level === 'error' || log.level === 'fatal' ? colors.red : log.level === 'warn' ? colors.yellow : colors.green;
  const ids = [log.run_id, log.call_id].filter(Boolean).join(' ');
  const where = `${String(log.service)}${log.context ? `/${String(log.context)}` : ''}`;
  return `${String(log.time)} ${tint(level)} [${where}] ${String(log[messageKey])}${ids ? `  (${ids})` : ''}${log.stack ? `\n${String(log.stack)}` : ''}`;
};

/**
 * The readable one-line format for a terminal (LOG_FORMAT=text, development), as a stream pino
 * writes to in-process: a pino-pretty transport would run in a worker thread that resolves its
 * modules from node_modules on its own, which the bundles in dist/ do not arrange for. pino's
 * streamWrite hook has already redacted the line.
 */
/** `colorize`: only when the lines go to a terminal (and NO_COLOR is unset). */
export function textLogStream(sink: DestinationStream, colorize: boolean): DestinationStream {
  const pretty = loadPrettyFactory()({
    messageFormat: houseLine,
    // The line above says all; pino-pretty adds its colours (on a terminal) and nothing else.
    ignore: 'time,level',
    hideObject: true,
    colorize,
  });
  return { write: (line: string) => sink.write(pretty(line)) };
}
