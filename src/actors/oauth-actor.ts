// OAuthActor: authorization codes, access and refresh tokens of one account, kept on the account's
// shard and stored only as SHA-256 hashes. The front mints the secrets and sends their hashes; the
// shard checks PKCE, expiry, single use and the account's credential generation (a key rotation
// revokes everything issued before it) in one transaction, and purges what has expired. A token a
// scoped key granted names the key and its generation: it has the key's scope and ends with it.
import { createHash } from 'node:crypto';
import { fail } from '../errors/registry.js';
import type { CommandOf, FamilyOf, Handlers } from '../contract/command-table.js';
import type { ScopedKeyRecord } from '../contract/keys.js';
import type { ActorContext } from './context.js';
import type { IssuedTokens } from '../contract/results.js';
import type { TokenRecord } from '../storage/token-store.js';
import type { TokenGrant } from './account-actor.js';

/** What the OAuth actor asks of the account actor (it never reads account records itself). */
export interface AccountLookup {
  /** The account's current credential generation, -1 for no account. */
  generation(accountId: string): number;
  keyBySecret(accountId: string, hash: string): ScopedKeyRecord | undefined;
  /** The unexpired key of that id, whatever its generation. */
  key(accountId: string, keyId: string): ScopedKeyRecord | undefined;
}

/** The scoped key a token came from, as its record keeps it. */
type KeyRef = Pick<TokenRecord, 'key_id' | 'key_generation'>;

export const ACCESS_TOKEN_TTL_MS = 3_600_000;

function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class OAuthActor {
  constructor(private readonly ctx: ActorContext, private readonly accounts: AccountLookup) {}

  private generationOf(accountId: string): number {
    return this.accounts.generation(accountId);
  }

  /** Whether the scoped key a record came from still stands at the generation it was granted under. */
  private keyStands(accountId: string, r: KeyRef): boolean {
    return this.accounts.key(accountId, r.key_id!)?.generation === (r.key_generation ?? 0);
  }

  /** Live, of the account's current generation, and (when a scoped key granted it) of a key that still stands. */
  private current(record: TokenRecord | undefined, accountId: string, kind: TokenRecord['kind']): record is TokenRecord {
    return !!record && record.kind === kind && record.account_id === accountId && record.expires_at > this.ctx.now()
      && (record.generation ?? 0) === this.generationOf(accountId)
      && (record.key_id === undefined || this.keyStands(accountId, record));
  }

  private get tokens() {
    return this.ctx.store.tokens;
  }

  /** A live access token (by hash) of the account's current generation, with the key that granted it; admission asks here. */
  accessGrant(accountId: string, hash: string, generation: number): TokenGrant | null {
    const token = this.tokens.get(hash);
    const live = !!token && token.account_id === accountId && token.kind === 'access_token' && token.expires_at > this.ctx.now()
      && (token.generation ?? 0) === generation;
    return live ? keyRef(token) : null;
  }

  /** The OAuth actor's part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<FamilyOf<'oauth'>> = {
    'oauth.issue_code': (cmd) => {
      const generation = this.generationOf(cmd.accountId);
      if (generation < 0) fail('invalid_grant', 'No such client');
      let key: KeyRef = {};
      if (cmd.keyId) {
        const k = this.accounts.key(cmd.accountId, cmd.keyId);
        if (!k) fail('invalid_grant', 'The key was revoked or has expired');
        key = { key_id: k.id, key_generation: k.generation };
      }
      return this.tokens.put(cmd.codeHash, {
        account_id: cmd.accountId, kind: 'auth_code', expires_at: this.ctx.now() + this.ctx.config.oauthCodeTtlMs, scope: 'mcp',
        code_challenge: cmd.codeChallenge, redirect_uri: cmd.redirectUri, resource: cmd.resource, generation, ...key,
        ...(cmd.clientId ? { client_id: cmd.clientId } : {}),
      }).then(() => ({ expires_in: this.ctx.config.oauthCodeTtlMs / 1000 }));
    },
    'oauth.redeem_code': (cmd) => this.redeem(cmd),
    'oauth.refresh': (cmd) => this.refresh(cmd),
    'oauth.client_credentials': (cmd) => this.clientCredentials(cmd),
  };

  /**
   * The client-credentials grant: a scoped key's id and secret buy an access token with the key's
   * scope, ending with the key (no refresh token, RFC 6749 §4.4.3).
   */
  private clientCredentials(cmd: CommandOf<'oauth.client_credentials'>): Promise<IssuedTokens> {
    const key = this.accounts.keyBySecret(cmd.accountId, cmd.secretHash);
    if (!key || key.id !== cmd.keyId) fail('invalid_client', 'client_id and client_secret must be a scoped key\'s id and secret');
    const now = this.ctx.now();
    const ends = Math.min(now + ACCESS_TOKEN_TTL_MS, key.expires_at ?? Infinity);
    return this.tokens.put(cmd.accessHash, {
      account_id: cmd.accountId, kind: 'access_token', expires_at: ends, scope: 'mcp', generation: this.generationOf(cmd.accountId),
      key_id: key.id, key_generation: key.generation,
    }).then(() => ({ scope: 'mcp', expires_in: Math.max(1, Math.floor((ends - now) / 1000)), refresh: false }));
  }

  /**
   * Tokens of a grant that ends at `grantEnds`: the refresh token keeps that absolute end however
   * often it is refreshed, and no access token outlives it.
   */
  private issue(accountId: string, accessHash: string, refreshHash: string, grantEnds: number, from: KeyRef): IssuedTokens {
    const now = this.ctx.now();
    const generation = this.generationOf(accountId);
    const key = keyRef(from);
    const accessEnds = Math.min(now + ACCESS_TOKEN_TTL_MS, grantEnds);
    this.tokens.put(accessHash, { account_id: accountId, kind: 'access_token', expires_at: accessEnds, scope: 'mcp', generation, ...key });
    this.tokens.put(refreshHash, { account_id: accountId, kind: 'refresh_token', expires_at: grantEnds, scope: 'mcp', generation, ...key });
    return { scope: 'mcp', expires_in: Math.max(1, Math.floor((accessEnds - now) / 1000)) };
  }

  private redeem(cmd: CommandOf<'oauth.redeem_code'>): Promise<IssuedTokens> {
    return this.ctx.store.transaction(() => {
      const code = this.tokens.get(cmd.codeHash);
      // Single use: the code is gone whatever the outcome, so a replay never succeeds.
      if (code) this.tokens.remove(cmd.codeHash);
      if (!code || code.kind !== 'auth_code' || code.account_id !== cmd.accountId) fail('invalid_grant', 'The authorization code is invalid or was already used');
      if (!this.current(code, cmd.accountId, 'auth_code')) fail('invalid_grant', 'The authorization code has expired or was revoked');
      if (s256(cmd.codeVerifier) !== code.code_challenge) fail('invalid_grant', 'code_verifier does not match the code_challenge');
      if (code.redirect_uri && code.redirect_uri !== cmd.redirectUri) fail('invalid_grant', 'redirect_uri does not match the one sent to /authorize');
      if ((code.client_id ?? null) !== (cmd.clientId ?? null)) fail('invalid_grant', 'The authorization code was issued to another client');
      return this.issue(cmd.accountId, cmd.accessHash, cmd.refreshHash, this.ctx.now() + this.ctx.config.oauthGrantTtlMs, code);
    });
  }

  private refresh(cmd: CommandOf<'oauth.refresh'>): Promise<IssuedTokens> {
    return this.ctx.store.transaction(() => {
      const token = this.tokens.get(cmd.refreshHash);
      if (!this.current(token, cmd.accountId, 'refresh_token')) fail('invalid_grant', 'The refresh token is invalid, expired or revoked');
      // Rotation: the used refresh token is replaced by the new one, which ends with the grant.
      this.tokens.remove(cmd.refreshHash);
      return this.issue(cmd.accountId, cmd.accessHash, cmd.newRefreshHash, token.expires_at, token);
    });
  }

  /** Removes expired codes and tokens, and those of a rotated-out key; answers how many. */
  purge(): Promise<number> {
    const now = this.ctx.now();
    return this.ctx.store.transaction(() => this.tokens.removeWhere((r) => r.expires_at <= now || (r.generation ?? 0) !== this.generationOf(r.account_id)
      || (r.key_id !== undefined && !this.keyStands(r.account_id, r))));
  }

  get records(): number {
    return this.tokens.count();
  }
}

function keyRef(r: KeyRef): KeyRef {
  return r.key_id === undefined ? {} : { key_id: r.key_id, key_generation: r.key_generation ?? 0 };
}
