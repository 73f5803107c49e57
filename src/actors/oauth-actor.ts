// OAuthActor: authorization codes, access and refresh tokens of one account, kept on the account's
// shard and stored only as SHA-256 hashes. The front mints the secrets and sends their hashes; the
// shard checks PKCE, expiry and single use in one transaction.
import { createHash } from 'node:crypto';
import { fail } from '../errors/registry.js';
import type { OAuthCommand } from '../contract/commands.js';
import type { ActorContext } from './context.js';
import type { IssuedTokens } from '../contract/results.js';

export const ACCESS_TOKEN_TTL_MS = 3_600_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3_600_000;

function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class OAuthActor {
  constructor(private readonly ctx: ActorContext) {}

  private get tokens() {
    return this.ctx.store.tokens;
  }

  /** Whether an access token (by hash) is live and belongs to the account; admission asks here. */
  accessTokenValid(accountId: string, hash: string): boolean {
    const token = this.tokens.get(hash);
    return !!token && token.account_id === accountId && token.kind === 'access_token' && token.expires_at > this.ctx.now();
  }

  handle(cmd: OAuthCommand): unknown {
    switch (cmd.type) {
      case 'oauth.issue_code':
        return this.tokens.put(cmd.codeHash, {
          account_id: cmd.accountId, kind: 'auth_code', expires_at: this.ctx.now() + this.ctx.config.oauthCodeTtlMs, scope: 'mcp',
          code_challenge: cmd.codeChallenge, redirect_uri: cmd.redirectUri, resource: cmd.resource,
        }).then(() => ({ expires_in: this.ctx.config.oauthCodeTtlMs / 1000 }));
      case 'oauth.redeem_code':
        return this.redeem(cmd);
      case 'oauth.refresh':
        return this.refresh(cmd);
    }
  }

  private issue(accountId: string, accessHash: string, refreshHash: string): IssuedTokens {
    const now = this.ctx.now();
    this.tokens.put(accessHash, { account_id: accountId, kind: 'access_token', expires_at: now + ACCESS_TOKEN_TTL_MS, scope: 'mcp' });
    this.tokens.put(refreshHash, { account_id: accountId, kind: 'refresh_token', expires_at: now + REFRESH_TOKEN_TTL_MS, scope: 'mcp' });
    return { scope: 'mcp', expires_in: ACCESS_TOKEN_TTL_MS / 1000 };
  }

  private redeem(cmd: Extract<OAuthCommand, { type: 'oauth.redeem_code' }>): Promise<IssuedTokens> {
    return this.ctx.store.transaction(() => {
      const code = this.tokens.get(cmd.codeHash);
      // Single use: the code is gone whatever the outcome, so a replay never succeeds.
      if (code) this.tokens.remove(cmd.codeHash);
      if (!code || code.kind !== 'auth_code' || code.account_id !== cmd.accountId) fail('invalid_grant', 'The authorization code is invalid or was already used');
      if (code.expires_at <= this.ctx.now()) fail('invalid_grant', 'The authorization code has expired');
      if (s256(cmd.codeVerifier) !== code.code_challenge) fail('invalid_grant', 'code_verifier does not match the code_challenge');
      if (code.redirect_uri && code.redirect_uri !== cmd.redirectUri) fail('invalid_grant', 'redirect_uri does not match the one sent to /authorize');
      return this.issue(cmd.accountId, cmd.accessHash, cmd.refreshHash);
    });
  }

  private refresh(cmd: Extract<OAuthCommand, { type: 'oauth.refresh' }>): Promise<IssuedTokens> {
    return this.ctx.store.transaction(() => {
      const token = this.tokens.get(cmd.refreshHash);
      if (!token || token.kind !== 'refresh_token' || token.account_id !== cmd.accountId || token.expires_at <= this.ctx.now()) {
        fail('invalid_grant', 'The refresh token is invalid or expired');
      }
      // Rotation: the used refresh token is replaced by the new one.
      this.tokens.remove(cmd.refreshHash);
      return this.issue(cmd.accountId, cmd.accessHash, cmd.newRefreshHash);
    });
  }
}
