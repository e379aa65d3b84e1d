import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a hook may not reach unless the operator allows it (`serve --webhook-allow-private`):
 * loopback, private, link-local, shared (CGNAT) and unspecified ranges, in both families, IPv4
 * written inside IPv6 included. A hook must not become a way into the operator's own network.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  // ::ffff:a.b.c.d is IPv4 a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return PRIVATE.check(mapped[1], 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

/** Where a delivery goes, after DNS: the one address it connects to, checked. */
export interface CheckedTarget {
  readonly url: URL;
  readonly address: string;
}

export class RefusedTarget extends Error {}

/** The URL's host name as DNS and TLS know it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Resolves the hook's host now, when sending (a name may point elsewhere than when the hook was
 * made), refuses it when any of its addresses is private (unless allowed), and names the address
 * to connect to, so the connection cannot be sent elsewhere by a second lookup.
 */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<CheckedTarget> {
  const parsed = new URL(url);
  const host = hostOf(parsed);
  const found = isIP(host) === 0 ? await lookup(host, { all: true, verbatim: true }) : [{ address: host }];
  const first = found[0];
  if (first === undefined) throw new RefusedTarget(`${host} has no address`);
  if (!allowPrivate && found.some((entry) => isPrivateAddress(entry.address))) {
    throw new RefusedTarget(
      `${host} is a loopback, private or link-local address (serve --webhook-allow-private allows it)`,
    );
  }
  return { url: parsed, address: first.address };
}
