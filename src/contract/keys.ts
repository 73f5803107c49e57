// Scoped API keys (issue 36): a key of an account limited to some inboxes (by address, or the
// inboxes it creates itself), to reading, or both, with an optional expiry. The account's shard keeps
// them in the account record (hashes only); admission answers a scoped credential with its scope,
// and every service checks it (src/services/scope.ts). OAuth tokens a key granted carry its scope.
import type { ScopedKey } from './shapes.js';

/** What a scoped credential may touch. An unscoped one (the account's API key) has none. */
export interface KeyScope {
  key_id: string;
  /** Bumped by every rotation of the key: tokens and sessions of an older one are refused. */
  generation: number;
  /** The addresses the key may use; null: every inbox of the account. */
  inboxes: string[] | null;
  /** The key may create inboxes and use those it created (besides `inboxes`). */
  created_inboxes: boolean;
  read_only: boolean;
  /** Unix ms when the key stops working (fronts stop trusting a cached admission then), or null. */
  expires_at: number | null;
}

export interface ScopedKeyRecord {
  id: string;
  name: string | null;
  /** SHA-256 of the secret; the secret itself is shown once, at creation or rotation. */
  hash: string;
  inboxes: string[] | null;
  created_inboxes: boolean;
  read_only: boolean;
  /** Unix ms, or null for a key that does not expire. */
  expires_at: number | null;
  created_at: string;
  generation: number;
}

/** A key as GET /v1/keys shows it: no secret, no hash (the public shape of src/contract/shapes.ts). */
export type KeyView = Omit<ScopedKey, 'key'>;

/** What the shard needs to create a key; the front mints the secret and sends its hash. */
export type NewKey = Omit<ScopedKeyRecord, 'generation'>;

/** Keys an account may hold at once. */
export const MAX_KEYS_PER_ACCOUNT = 50;

export function toKeyView(k: ScopedKeyRecord): KeyView {
  return {
    id: k.id, name: k.name, inboxes: k.inboxes, created_inboxes: k.created_inboxes, read_only: k.read_only,
    expires_at: k.expires_at === null ? null : new Date(k.expires_at).toISOString(), created_at: k.created_at,
  };
}

export function scopeOf(k: ScopedKeyRecord): KeyScope {
  return { key_id: k.id, generation: k.generation, inboxes: k.inboxes, created_inboxes: k.created_inboxes, read_only: k.read_only, expires_at: k.expires_at };
}

/** Whether the scope reaches every inbox of the account (it may still be read-only). */
export function allInboxes(scope: KeyScope | undefined): boolean {
  return !scope || scope.inboxes === null;
}

/** A short text of a scope, for the consent page and the CLI. */
export function describeScope(scope: KeyScope | undefined): string {
  if (!scope) return 'every inbox, read and write';
  const where = scope.inboxes === null
    ? 'every inbox'
    : [scope.inboxes.length > 0 ? scope.inboxes.join(', ') : '', scope.created_inboxes ? 'the inboxes it creates' : ''].filter(Boolean).join(' and ') || 'no inbox';
  return `${where}, ${scope.read_only ? 'read only' : 'read and write'}`;
}
