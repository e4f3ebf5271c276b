import { BlockList, isIP } from 'node:net';

/** Addresses only this machine can reach. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether listening on `host` keeps the api to this machine. A name other than localhost is not trusted to be loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  const family = isIP(h);
  return family === 4 ? LOOPBACK.check(h, 'ipv4') : family === 6 ? LOOPBACK.check(h, 'ipv6') : false;
}

/** HOST as set, else loopback for an api without tokens and every interface for one with them. */
export function listenHost(env: { HOST?: string; API_TOKENS: readonly unknown[] }): string {
  return env.HOST ?? (env.API_TOKENS.length ? '0.0.0.0' : '127.0.0.1');
}
