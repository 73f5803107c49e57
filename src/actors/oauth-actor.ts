// OAuthActor: authorization codes, access and refresh tokens of one account, kept on the account's
// shard and stored only as SHA-256 hashes. The front mints the secrets and sends their hashes; the
// shard checks PKCE, expiry, single use and the account's credential generation (a key rotation
// revokes everything issued before it) in one transaction, and purges what has expired.
import { createHash } from 'node:crypto';
import { fail } from '../errors/registry.js';
import type { CommandOf, FamilyOf, Handlers } from '../contract/command-table.js';
import type { ActorContext } from './context.js';
import type { IssuedTokens } from '../contract/results.js';
import type { TokenRecord } from '../storage/token-store.js';

export const ACCESS_TOKEN_TTL_MS = 3_600_000;

function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class OAuthActor {
  /** `generationOf` answers the account's current credential generation, -1 for no account. */
  constructor(private readonly ctx: ActorContext, private readonly generationOf: (accountId: string) => number) {}

  private current(record: TokenRecord | undefined, accountId: string, kind: TokenRecord['kind']): record is TokenRecord {
    return !!record && record.kind === kind && record.account_id === accountId && record.expires_at > this.ctx.now()
      && (record.generation ?? 0) === this.generationOf(accountId);
  }

  private get tokens() {
    return this.ctx.store.tokens;
  }

  /** Whether an access token (by hash) is live, of the account's current generation; admission asks here. */
  accessTokenValid(accountId: string, hash: string, generation: number): boolean {
    const token = this.tokens.get(hash);
    return !!token && token.account_id === accountId && token.kind === 'access_token' && token.expires_at > this.ctx.now()
      && (token.generation ?? 0) === generation;
  }

  /** The OAuth actor's part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<FamilyOf<'oauth'>> = {
    'oauth.issue_code': (cmd) => {
      const generation = this.generationOf(cmd.accountId);
      if (generation < 0) fail('invalid_grant', 'No such client');
      return this.tokens.put(cmd.codeHash, {
        account_id: cmd.accountId, kind: 'auth_code', expires_at: this.ctx.now() + this.ctx.config.oauthCodeTtlMs, scope: 'mcp',
        code_challenge: cmd.codeChallenge, redirect_uri: cmd.redirectUri, resource: cmd.resource, generation,
      }).then(() => ({ expires_in: this.ctx.config.oauthCodeTtlMs / 1000 }));
    },
    'oauth.redeem_code': (cmd) => this.redeem(cmd),
    'oauth.refresh': (cmd) => this.refresh(cmd),
  };

  /**
   * Tokens of a grant that ends at `grantEnds`: the refresh token keeps that absolute end however
   * often it is refreshed, and no access token outlives it.
   */
  private issue(accountId: string, accessHash: string, refreshHash: string, grantEnds: number): IssuedTokens {
    const now = this.ctx.now();
    const generation = this.generationOf(accountId);
    const accessEnds = Math.min(now + ACCESS_TOKEN_TTL_MS, grantEnds);
    this.tokens.put(accessHash, { account_id: accountId, kind: 'access_token', expires_at: accessEnds, scope: 'mcp', generation });
    this.tokens.put(refreshHash, { account_id: accountId, kind: 'refresh_token', expires_at: grantEnds, scope: 'mcp', generation });
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
      return this.issue(cmd.accountId, cmd.accessHash, cmd.refreshHash, this.ctx.now() + this.ctx.config.oauthGrantTtlMs);
    });
  }

  private refresh(cmd: CommandOf<'oauth.refresh'>): Promise<IssuedTokens> {
    return this.ctx.store.transaction(() => {
      const token = this.tokens.get(cmd.refreshHash);
      if (!this.current(token, cmd.accountId, 'refresh_token')) fail('invalid_grant', 'The refresh token is invalid, expired or revoked');
      // Rotation: the used refresh token is replaced by the new one, which ends with the grant.
      this.tokens.remove(cmd.refreshHash);
      return this.issue(cmd.accountId, cmd.accessHash, cmd.newRefreshHash, token.expires_at);
    });
  }

  /** Removes expired codes and tokens, and those of a rotated-out key; answers how many. */
  purge(): Promise<number> {
    const now = this.ctx.now();
    return this.ctx.store.transaction(() => this.tokens.removeWhere((r) => r.expires_at <= now || (r.generation ?? 0) !== this.generationOf(r.account_id)));
  }

  get records(): number {
    return this.tokens.count();
  }
}
