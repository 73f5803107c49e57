// The OAuth flow as a raw HTTP client sends it: /authorize with PKCE, then /token.
import { createHash, randomBytes } from 'node:crypto';

type Json = Record<string, any>;
const REDIRECT = 'http://127.0.0.1:9/callback';

export interface Grant {
  code: string;
  verifier: string;
}

/** One authorization code for `apiKey` (not yet redeemed). */
export async function authorizationCode(baseUrl: string, apiKey: string): Promise<Grant> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${baseUrl}/authorize`);
  url.search = new URLSearchParams({
    client_id: apiKey, redirect_uri: REDIRECT, response_type: 'code', state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`authorize: ${res.status} ${await res.text()}`);
  return { code: new URL(res.headers.get('location')!).searchParams.get('code')!, verifier };
}

export async function tokenRequest(baseUrl: string, params: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${baseUrl}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

export function redeem(baseUrl: string, apiKey: string, grant: Grant) {
  return tokenRequest(baseUrl, { grant_type: 'authorization_code', code: grant.code, code_verifier: grant.verifier, client_id: apiKey, redirect_uri: REDIRECT });
}

export function refresh(baseUrl: string, refreshToken: string) {
  return tokenRequest(baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** A PKCE verifier and its S256 challenge. */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An /authorize URL with the usual parameters (code, S256, state `st`) and `params` over them. */
export function authorizeUrl(baseUrl: string, redirect: string, params: Record<string, string>): URL {
  const url = new URL(`${baseUrl}/authorize`);
  for (const [k, v] of Object.entries({ response_type: 'code', redirect_uri: redirect, state: 'st', code_challenge_method: 'S256', ...params })) url.searchParams.set(k, v);
  return url;
}
