// Bearer credentials. Each one names the account it belongs to, so the front tier can route the
// check to that account's shard in one hop; the shard compares SHA-256 hashes and never stores or
// logs the secret itself.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomHex } from '../util/ids.js';

export type CredentialKind = 'api_key' | 'access_token' | 'refresh_token' | 'auth_code' | 'scoped_key';

const PREFIX: Record<CredentialKind, string> = {
  api_key: 'mc',
  access_token: 'mca',
  refresh_token: 'mcr',
  auth_code: 'mcc',
  /** A scoped key's secret (issue 36); its id is a `key_…` (newKeyId). */
  scoped_key: 'mck',
};
const KIND_BY_PREFIX = new Map(Object.entries(PREFIX).map(([k, p]) => [p, k as CredentialKind]));

const CREDENTIAL = /^(mc|mca|mcr|mcc|mck)_([0-9a-f]{16})_([0-9a-f]{48})$/;

export interface ParsedCredential {
  kind: CredentialKind;
  accountId: string;
  hash: string;
}

export function newAccountId(): string {
  return `acc_${randomHex(8)}`;
}

export function newCredential(kind: CredentialKind, accountId: string): string {
  return `${PREFIX[kind]}_${accountId.slice(4)}_${randomHex(24)}`;
}

const KEY_ID = /^key_[0-9a-f]{16}$/;

/** A scoped key's public id: its OAuth client_id in the client-credentials grant. */
export function newKeyId(): string {
  return `key_${randomHex(8)}`;
}

export function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && KEY_ID.test(value);
}

/** Credentials that authenticate a request by themselves: the API key, a scoped key, an access token. */
export type BearerKind = 'api_key' | 'scoped_key' | 'access_token';

export function isBearerKind(kind: CredentialKind): kind is BearerKind {
  return kind === 'api_key' || kind === 'scoped_key' || kind === 'access_token';
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Returns null for anything that is not a well-formed Mailcue credential. */
export function parseCredential(value: string): ParsedCredential | null {
  const m = CREDENTIAL.exec(value);
  if (!m) return null;
  return { kind: KIND_BY_PREFIX.get(m[1]!)!, accountId: `acc_${m[2]}`, hash: sha256Hex(value) };
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
