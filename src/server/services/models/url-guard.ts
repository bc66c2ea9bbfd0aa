// The SSRF guard of outgoing calls to addresses users give (an HTTP model's endpoint): http or https
// only, no credentials in the URL, and every address the host name resolves to must be public
// unless the setting allows private ones (MODELS_ALLOW_PRIVATE_URLS). Checked when the model is
// registered and again before each call (a name can resolve elsewhere later).
import dns from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

/** Whether an IP address is private, loopback, link-local, shared, reserved or multicast (IPv4-mapped IPv6 judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  if (!family) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class UrlNotAllowedError extends Error {
  override name = 'UrlNotAllowedError';
}

/** The URL parsed, or UrlNotAllowedError saying why it may not be called. */
export async function checkOutgoingUrl(raw: string, opts: { allowPrivate: boolean; lookup?: (host: string) => Promise<string[]> }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowedError('url is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlNotAllowedError(`url must be http or https (got ${url.protocol.replace(':', '')})`);
  if (url.username || url.password) throw new UrlNotAllowedError('url may not hold credentials: send them as headers');
  if (opts.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const lookup = opts.lookup ?? (async (h: string) => (await dns.lookup(h, { all: true, verbatim: true })).map((a) => a.address));
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await lookup(host);
  } catch {
    throw new UrlNotAllowedError(`the host ${host} could not be resolved`);
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new UrlNotAllowedError(`the host ${host} is a private, loopback or link-local address; a server administrator can allow those with MODELS_ALLOW_PRIVATE_URLS=true`);
  }
  return url;
}
