// The scoped keys of an account (issue 36), kept in its record on the account's shard: created,
// listed, rotated and deleted here, and found by the hash of their secret at admission. Rotating or
// deleting a key is told to every front (a `key_revoked` notice), which drops what it cached of the
// key's credentials and ends the sessions it opened; the tokens it granted are refused from then on
// because their key generation no longer matches.
import { fail } from '../errors/registry.js';
import { hashesEqual } from '../security/credentials.js';
import { MAX_KEYS_PER_ACCOUNT, toKeyView, type KeyView, type NewKey, type ScopedKeyRecord } from '../contract/keys.js';
import type { AccountRecord } from '../contract/model.js';
import type { AccountNotice } from '../contract/results.js';

/** The generation a deleted key's notice carries: every credential of it is refused. */
export const DELETED_KEY_GENERATION = Number.MAX_SAFE_INTEGER;

/** How the account actor writes a changed record and tells the fronts. */
export type RecordUpdate = (accountId: string, change: (r: AccountRecord) => AccountRecord, notice: (next: AccountRecord) => AccountNotice | null) => Promise<AccountRecord>;

export class AccountKeys {
  constructor(
    private readonly load: (accountId: string) => AccountRecord,
    private readonly update: RecordUpdate,
    private readonly now: () => number,
  ) {}

  list(accountId: string): KeyView[] {
    return (this.load(accountId).keys ?? []).map(toKeyView);
  }

  async create(accountId: string, key: NewKey): Promise<KeyView> {
    const record: ScopedKeyRecord = { ...key, generation: 0 };
    await this.update(accountId, (r) => {
      const keys = r.keys ?? [];
      if (keys.length >= MAX_KEYS_PER_ACCOUNT) fail('limit_reached', `An account can have at most ${MAX_KEYS_PER_ACCOUNT} keys; delete one first`);
      return { ...r, keys: [...keys, record] };
    }, () => null);
    return toKeyView(record);
  }

  /** A new secret for the same id and scope; what the old one granted ends. */
  async rotate(accountId: string, keyId: string, hash: string): Promise<KeyView> {
    let rotated: ScopedKeyRecord | undefined;
    await this.update(accountId, (r) => {
      const keys = (r.keys ?? []).map((k) => (k.id === keyId ? (rotated = { ...k, hash, generation: k.generation + 1 }) : k));
      if (!rotated) fail('not_found', `No key ${keyId}`);
      return { ...r, keys };
    }, (next) => ({ account_id: next.id, kind: 'key_revoked', generation: rotated!.generation, session_id: '', key_id: keyId }));
    return toKeyView(rotated!);
  }

  async delete(accountId: string, keyId: string): Promise<{ id: string }> {
    await this.update(accountId, (r) => {
      const keys = r.keys ?? [];
      if (!keys.some((k) => k.id === keyId)) fail('not_found', `No key ${keyId}`);
      return { ...r, keys: keys.filter((k) => k.id !== keyId) };
    }, (next) => ({ account_id: next.id, kind: 'key_revoked', generation: DELETED_KEY_GENERATION, session_id: '', key_id: keyId }));
    return { id: keyId };
  }

  /** The unexpired key whose secret hashes to `hash`, or undefined. */
  bySecret(record: AccountRecord, hash: string): ScopedKeyRecord | undefined {
    const key = record.keys?.find((k) => hashesEqual(k.hash, hash));
    return key && this.current(key) ? key : undefined;
  }

  /** The unexpired key of that id, whatever its generation (a token checks its own against it). */
  byId(record: AccountRecord, keyId: string): ScopedKeyRecord | undefined {
    const key = record.keys?.find((k) => k.id === keyId);
    return key && this.current(key) ? key : undefined;
  }

  private current(key: ScopedKeyRecord): boolean {
    return key.expires_at === null || key.expires_at > this.now();
  }
}
