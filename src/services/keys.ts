// Scoped keys (issue 36): created, listed, rotated and deleted by the account's own API key (REST
// /v1/keys, `mailcue keys`, the dashboard). The secret is minted here, shown once, and only its
// SHA-256 reaches the account's shard. Rotating or deleting a key revokes what it granted on
// every front within a second (the shard's `key_revoked` notice).
import type { KeyView, NewKey } from '../contract/keys.js';
import type { ScopedKey } from '../contract/shapes.js';
import { fail } from '../errors/registry.js';
import { isKeyId, newCredential, newKeyId, sha256Hex } from '../security/credentials.js';
import type { Caller, Deps } from './deps.js';
import { requireAccountKey } from './scope.js';
import { optionalBool, requireAddress } from './validate.js';

const NAME_MAX_CHARS = 100;
const INBOXES_MAX = 100;
/** Five years: a key that should live longer need not expire. */
const EXPIRY_MAX_S = 5 * 365 * 24 * 3600;

/** A key and its secret, as the creation and rotation answers show it (the only time the secret is shown). */
export type IssuedKey = KeyView & Required<Pick<ScopedKey, 'key'>>;

export interface KeyInput {
  name?: unknown;
  inboxes?: unknown;
  created_inboxes?: unknown;
  read_only?: unknown;
  expires_at?: unknown;
  expires_in?: unknown;
}

function invalid(param: string, message: string): never {
  fail('invalid_parameter', message, { param });
}

function keyName(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  // eslint-disable-next-line no-control-regex
  if (typeof value !== 'string' || value.length > NAME_MAX_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(value)) {
    invalid('name', `name must be text of at most ${NAME_MAX_CHARS} characters without control characters`);
  }
  return value.trim() || null;
}

function inboxList(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length > INBOXES_MAX) invalid('inboxes', `inboxes must be a list of at most ${INBOXES_MAX} email addresses`);
  return [...new Set(value.map((a) => requireAddress(a, 'inboxes')))];
}

/** Unix ms of the expiry: `expires_at` (ISO 8601, in the future) or `expires_in` (seconds); null for none. */
function expiry(input: KeyInput, now: number): number | null {
  const hasAt = input.expires_at !== undefined && input.expires_at !== null;
  const hasIn = input.expires_in !== undefined && input.expires_in !== null;
  if (hasAt && hasIn) invalid('expires_at', 'give expires_at or expires_in, not both');
  if (hasIn) {
    const s = input.expires_in;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 1 || s > EXPIRY_MAX_S) invalid('expires_in', `expires_in must be a whole number of seconds from 1 to ${EXPIRY_MAX_S}`);
    return now + s * 1000;
  }
  if (!hasAt) return null;
  const at = typeof input.expires_at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(input.expires_at) ? Date.parse(input.expires_at) : NaN;
  if (!Number.isFinite(at) || at <= now || at > now + EXPIRY_MAX_S * 1000) invalid('expires_at', 'expires_at must be an ISO 8601 time in the future, within five years');
  return at;
}

/** The key a request describes; without inboxes or created_inboxes it reaches every inbox. */
export function keyFromInput(input: KeyInput, now = Date.now()): Omit<NewKey, 'id' | 'hash'> {
  const listed = inboxList(input.inboxes);
  const created = optionalBool(input.created_inboxes, 'created_inboxes');
  return {
    name: keyName(input.name),
    inboxes: listed === null && !created ? null : (listed ?? []),
    created_inboxes: created,
    read_only: optionalBool(input.read_only, 'read_only'),
    expires_at: expiry(input, now),
    created_at: new Date(now).toISOString(),
  };
}

function requireKeyId(value: unknown): string {
  if (!isKeyId(value)) fail('not_found', `No key ${typeof value === 'string' ? value.slice(0, 40) : ''}`);
  return value;
}

export async function createKey(deps: Deps, caller: Caller, input: KeyInput): Promise<IssuedKey> {
  requireAccountKey(caller, 'manage keys');
  const secret = newCredential('scoped_key', caller.accountId);
  const key: NewKey = { id: newKeyId(), hash: sha256Hex(secret), ...keyFromInput(input) };
  const view = await deps.cluster.call({ type: 'account.key_create', accountId: caller.accountId, key });
  return { ...view, key: secret };
}

export function listKeys(deps: Deps, caller: Caller): Promise<KeyView[]> {
  requireAccountKey(caller, 'manage keys');
  return deps.cluster.call({ type: 'account.key_list', accountId: caller.accountId });
}

export async function rotateKey(deps: Deps, caller: Caller, id: unknown): Promise<IssuedKey> {
  requireAccountKey(caller, 'manage keys');
  const keyId = requireKeyId(id);
  const secret = newCredential('scoped_key', caller.accountId);
  const view = await deps.cluster.call({ type: 'account.key_rotate', accountId: caller.accountId, keyId, hash: sha256Hex(secret) });
  return { ...view, key: secret };
}

export async function deleteKey(deps: Deps, caller: Caller, id: unknown): Promise<string> {
  requireAccountKey(caller, 'manage keys');
  const keyId = requireKeyId(id);
  await deps.cluster.call({ type: 'account.key_delete', accountId: caller.accountId, keyId });
  return keyId;
}
