import { lookup as dnsLookup } from 'node:dns/promises';

export type ResolvedAddress = { readonly address: string; readonly family: 4 | 6 };

/** Every address of a host name. A port, so that tests answer for names no DNS knows. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (`dns.lookup`, all addresses, in the order it gives them). */
export const systemResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));
