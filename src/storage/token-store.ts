// OAuth authorization codes, access and refresh tokens, stored only by the SHA-256 hash of the
// secret. Key layout: oauth_tokens hash → record.
import type { Database, RootDatabase } from 'lmdb';
import { entryCount, openDb } from './keys.js';

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
}

export class TokenStore {
  private readonly tokens: Database<TokenRecord, string>;

  constructor(root: RootDatabase) {
    this.tokens = openDb<TokenRecord, string>(root, 'oauth_tokens');
  }

  get(hash: string): TokenRecord | undefined {
    return this.tokens.get(hash);
  }

  put(hash: string, record: TokenRecord): Promise<boolean> {
    return this.tokens.put(hash, record);
  }

  remove(hash: string): void {
    void this.tokens.remove(hash);
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
