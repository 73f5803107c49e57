// OAuth authorization codes, access and refresh tokens, stored only by the SHA-256 hash of the
// secret. Key layout (keys.ts): oauth_tokens [slot(account_id), hash] → record; a hash finds its
// slot through the slot index.
import type { Database, RootDatabase } from 'lmdb';
import { entryCount, inSlot, openDb, type Key } from './keys.js';
import { slotIndexOf, type SlotIndex } from './slot-index.js';

export interface TokenRecord {
  account_id: string;
  kind: 'auth_code' | 'access_token' | 'refresh_token';
  expires_at: number;
  scope: string;
  /** Authorization codes only: what the token request must match. */
  code_challenge?: string;
  redirect_uri?: string | null;
  resource?: string | null;
  /** The account's credential generation when issued (a key rotation bumps it); absent means 0. */
  generation?: number;
  /** The scoped key that granted it and that key's generation then: the token has the key's scope and ends with it. */
  key_id?: string;
  key_generation?: number;
  /** Codes only: a client other than the account's own key (metadata-document URL, registered client) that /token must name. */
  client_id?: string;
}

export class TokenStore {
  private readonly tokens: Database<TokenRecord, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.tokens = openDb<TokenRecord>(root, 'oauth_tokens');
    this.index = slotIndexOf(root);
  }

  private key(hash: string): Key | undefined {
    const slot = this.index.slot('oauth_tokens', [hash]);
    return slot === undefined ? undefined : [slot, hash];
  }

  get(hash: string): TokenRecord | undefined {
    const key = this.key(hash);
    return key === undefined ? undefined : this.tokens.get(key);
  }

  put(hash: string, record: TokenRecord): Promise<boolean> {
    return this.tokens.put(inSlot(record.account_id, hash), record);
  }

  remove(hash: string): void {
    const key = this.key(hash);
    if (key !== undefined) void this.tokens.remove(key);
  }

  /** Inside a transaction: removes every record `stale` picks; answers how many. */
  removeWhere(stale: (record: TokenRecord) => boolean): number {
    let removed = 0;
    for (const { key, value } of this.tokens.getRange()) {
      if (!stale(value)) continue;
      void this.tokens.remove(key);
      removed++;
    }
    return removed;
  }

  count(): number {
    return entryCount(this.tokens);
  }
}
