// The consent page of /authorize for clients that are not the account's own key (a metadata
// document URL, a registered client): first the user signs in with an API key, then the page names
// the client, the account and what the grant allows, with Allow and Deny. Every value on it comes
// from the client or the request, so every one is escaped (output stays inert, DESIGN §7), the page
// runs no script, and it may not be framed (clickjacking).

export interface ConsentClient {
  /** The name the client gives itself (unverified) and the client_id it is known by. */
  name: string | null;
  clientId: string;
  /** Where the browser goes back to: its host is what the user can trust. */
  redirectUri: string;
}

export interface ConsentAccount {
  id: string;
  name: string | null;
  plan: string;
  /** What the key the user signed in with reaches (describeScope). */
  reach: string;
}

/** The request's own parameters, carried through the form unchanged. */
export type Carried = [string, string][];

export const PAGE_HEADERS: [string, string][] = [
  ['Content-Type', 'text/html; charset=utf-8'],
  ['Cache-Control', 'no-store'],
  ['Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
];

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function hidden(carried: Carried): string {
  return carried.map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('\n      ');
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}button{font:inherit;padding:.5rem 1.2rem;margin:.8rem .6rem 0 0}
.note{color:#555;font-size:.9rem}.error{color:#a00}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>`;
}

function clientFacts(client: ConsentClient): string {
  return `<dt>Client</dt><dd id="client-name">${escapeHtml(client.name ?? hostOf(client.clientId))}</dd>
    <dt>Client ID</dt><dd id="client-id">${escapeHtml(client.clientId.length > 120 ? `${client.clientId.slice(0, 120)}…` : client.clientId)}</dd>
    <dt>Returns to</dt><dd id="redirect-host">${escapeHtml(hostOf(client.redirectUri))}</dd>
    <dt>Scope</dt><dd id="scope">mcp: use Mailcue's agent tools (inboxes, messages, custom domains)</dd>`;
}

/** Step 1: who is asking, and a field for the API key that names the account. */
export function signInPage(client: ConsentClient, carried: Carried, error: string | null = null): string {
  return page('Sign in to Mailcue', `<h1>Sign in to connect ${escapeHtml(client.name ?? hostOf(client.clientId))}</h1>
  <p class="note">The client's name is what it says of itself; check where you are sent back to.</p>
  <dl>${clientFacts(client)}</dl>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
  <form method="post" action="/authorize">
      ${hidden(carried)}
      <label for="api_key">API key of the account to connect (the account key, or a scoped key)</label>
      <input type="password" id="api_key" name="api_key" autocomplete="off" required>
      <button type="submit" name="step" value="sign_in">Continue</button>
  </form>`);
}

/** Step 2: the client, the account and the scope, with Allow and Deny. */
export function consentPage(client: ConsentClient, account: ConsentAccount, carried: Carried): string {
  return page('Allow access?', `<h1>Allow ${escapeHtml(client.name ?? hostOf(client.clientId))} to use your Mailcue account?</h1>
  <dl>${clientFacts(client)}
    <dt>Account</dt><dd id="account">${escapeHtml(account.name ? `${account.name} (${account.id})` : account.id)}, ${escapeHtml(account.plan)} plan</dd>
    <dt>Reaches</dt><dd id="reach">${escapeHtml(account.reach)}</dd>
  </dl>
  <form method="post" action="/authorize">
      ${hidden(carried)}
      <button type="submit" name="decision" value="allow" id="allow">Allow</button>
      <button type="submit" name="decision" value="deny" id="deny">Deny</button>
  </form>`);
}
