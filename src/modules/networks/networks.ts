import type { BrandPages } from './brand-pages.js';
import type { NetworkApi, NetworkDeclaration } from './declaration.js';
import { declaredNetworks } from './registry.js';

type Declared = (typeof declaredNetworks)[number];

/** Every network the gateway knows: those of members' identities, and those only brands have pages on (itunes). */
export type KnownNetwork = Declared['id'];
/** The networks of members' identities: the login set. */
export type Network = Extract<Declared, { identities: 'register' | 'retired' }>['id'];
export type RegisterNetwork = Extract<Declared, { identities: 'register' }>['id'];
export type RetiredNetwork = Extract<Declared, { identities: 'retired' }>['id'];
/** The networks with an API to call: every register network but email. */
export type ExternalNetwork = Extract<Declared, { api: NetworkApi }>['id'];
/** The networks a brand record has fields for. */
export type BrandNetwork = Extract<Declared, { brand: BrandPages }>['id'];

const declarations: readonly NetworkDeclaration[] = declaredNetworks;
const idsWhere = <Id extends KnownNetwork>(keep: (declaration: NetworkDeclaration) => boolean) => declarations.filter(keep).map((declaration) => declaration.id) as Id[];

/** The networks a member may register with: email and every network declared with `identities: 'register'`. */
export const registerNetworks: readonly RegisterNetwork[] = idsWhere((network) => network.identities === 'register');

/** Networks that closed their APIs: their identities still sign in, but nothing can be checked with them. */
export const retiredNetworks: readonly RetiredNetwork[] = idsWhere((network) => network.identities === 'retired');

/** Login and verify accept every register network and the retired ones, whose old identities still sign in. */
export const loginNetworks: readonly Network[] = [...registerNetworks, ...retiredNetworks];

export const externalNetworks: readonly ExternalNetwork[] = idsWhere((network) => network.api !== undefined);

/** The networks of a brand record's fields, in the record's order. */
export const brandRecordNetworks: readonly BrandNetwork[] = idsWhere((network) => network.brand !== undefined);

const byId: ReadonlyMap<string, NetworkDeclaration> = new Map(declarations.map((declaration) => [declaration.id, declaration]));
const registerSet: ReadonlySet<string> = new Set(registerNetworks);
const loginSet: ReadonlySet<string> = new Set(loginNetworks);
const retiredSet: ReadonlySet<string> = new Set(retiredNetworks);

export function isRegisterNetwork(value: string): value is RegisterNetwork {
  return registerSet.has(value);
}

export function isLoginNetwork(value: string): value is Network {
  return loginSet.has(value);
}

export function isRetiredNetwork(value: string): value is RetiredNetwork {
  return retiredSet.has(value);
}

/** How the network names itself, for people ('Last.fm', 'YouTube', 'SoundCloud'). */
export function displayName(network: KnownNetwork): string {
  return byId.get(network)!.name;
}

/** What a brand record's pages on the network are read with; undefined for a network without brand fields. */
export function brandPagesOf(network: KnownNetwork): BrandPages | undefined {
  return byId.get(network)?.brand;
}

/** A network identifier of the set, case-insensitive and trimmed; undefined when unknown. */
export function parseNetwork(value: string, set: 'register' | 'login'): Network | undefined {
  const candidate = value.trim().toLowerCase();
  return (set === 'register' ? isRegisterNetwork : isLoginNetwork)(candidate) ? candidate : undefined;
}
