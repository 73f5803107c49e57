// The web dashboard: one static page that signs in with an API key and drives the same REST API
// as everyone else, so inboxes, messages, domains and webhooks are the same data in both places.
export const DASHBOARD_HTML = /* html */ `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailcue dashboard</title>
<style>
  :root { --fg:#111827; --muted:#6b7280; --line:#e5e7eb; --accent:#2563eb; --bad:#b91c1c; --ok:#047857; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.5 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; color:var(--fg); background:#f9fafb; }
  header { display:flex; align-items:center; gap:16px; padding:12px 24px; background:#fff; border-bottom:1px solid var(--line); }
  header h1 { font-size:18px; margin:0; }
  header .plan { color:var(--muted); }
  nav button { background:none; border:none; padding:8px 12px; cursor:pointer; color:var(--muted); font-size:14px; }
  nav button[aria-selected="true"] { color:var(--accent); border-bottom:2px solid var(--accent); }
  main { max-width:1100px; margin:24px auto; padding:0 24px; }
  section { background:#fff; border:1px solid var(--line); border-radius:8px; padding:16px 20px; margin-bottom:20px; }
  table { width:100%; border-collapse:collapse; }
  th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
  th { color:var(--muted); font-weight:500; }
  code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:13px; }
  form { display:flex; gap:8px; margin:8px 0 12px; flex-wrap:wrap; }
  input { padding:6px 8px; border:1px solid var(--line); border-radius:6px; min-width:260px; font-size:14px; }
  button.action { padding:6px 12px; border-radius:6px; border:1px solid var(--accent); background:var(--accent); color:#fff; cursor:pointer; }
  button.link { background:none; border:none; color:var(--accent); cursor:pointer; padding:0; }
  button.danger { color:var(--bad); }
  .otp { font-weight:700; font-size:15px; letter-spacing:1px; }
  .error { color:var(--bad); min-height:1.5em; }
  .ok { color:var(--ok); }
  .muted { color:var(--muted); }
  pre { white-space:pre-wrap; background:#f3f4f6; padding:12px; border-radius:6px; max-height:400px; overflow:auto; }
  [hidden] { display:none !important; }
</style>
</head>
<body>
<header>
  <h1>Mailcue</h1>
  <span class="plan" id="plan"></span>
  <nav id="tabs" hidden>
    <button data-tab="inboxes" aria-selected="true">Inboxes</button>
    <button data-tab="domains">Custom domains</button>
    <button data-tab="webhooks">Webhooks</button>
  </nav>
  <span style="flex:1"></span>
  <button class="link" id="signout" hidden>Sign out</button>
</header>
<main>
  <section id="signin">
    <h2>Sign in</h2>
    <form id="signin-form">
      <input id="api-key" type="password" placeholder="API key (mc_…)" autocomplete="off" required>
      <button class="action" type="submit">Sign in</button>
    </form>
    <div class="error" id="signin-error"></div>
  </section>

  <div id="app" hidden>
    <div id="tab-inboxes">
      <section>
        <h2>Inboxes</h2>
        <form id="inbox-form">
          <input id="inbox-address" placeholder="address (optional, e.g. signup@mailcue.test)">
          <button class="action" type="submit">Create inbox</button>
        </form>
        <div class="error" id="inbox-error"></div>
        <table><thead><tr><th>Address</th><th>Messages</th><th>Unread</th><th>Created</th><th></th></tr></thead><tbody id="inbox-rows"></tbody></table>
      </section>
      <section id="messages" hidden>
        <h2>Messages of <span class="mono" id="messages-inbox"></span> <button class="link" id="messages-refresh">refresh</button></h2>
        <table><thead><tr><th>From</th><th>Subject</th><th>Code</th><th>Link</th><th>Received</th><th></th></tr></thead><tbody id="message-rows"></tbody></table>
        <pre id="message-body" hidden></pre>
      </section>
    </div>

    <div id="tab-domains" hidden>
      <section>
        <h2>Custom domains</h2>
        <form id="domain-form">
          <input id="domain-name" placeholder="mail.example.com" required>
          <button class="action" type="submit">Add domain</button>
        </form>
        <div class="error" id="domain-error"></div>
        <table><thead><tr><th>Domain</th><th>Status</th><th>DNS records to publish at @</th><th>Added</th><th></th></tr></thead><tbody id="domain-rows"></tbody></table>
      </section>
    </div>

    <div id="tab-webhooks" hidden>
      <section>
        <h2>Webhooks</h2>
        <form id="webhook-form">
          <input id="webhook-url" placeholder="https://example.com/hooks/mailcue" required>
          <input id="webhook-inbox" placeholder="inbox address" required>
          <button class="action" type="submit">Add webhook</button>
        </form>
        <div class="error" id="webhook-error"></div>
        <table><thead><tr><th>Id</th><th>Inbox</th><th>URL</th><th>Failures</th><th>Status</th><th></th></tr></thead><tbody id="webhook-rows"></tbody></table>
      </section>
    </div>
  </div>
</main>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  let key = sessionStorage.getItem('mailcue.key');
  let current = null;

  async function api(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { authorization: 'Bearer ' + key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok || json.success === false) throw Object.assign(new Error(json.message || ('HTTP ' + res.status)), { status: res.status, body: json });
    return json;
  }
  const report = (id, fn) => async (...args) => {
    $(id).textContent = '';
    try { await fn(...args); } catch (err) { $(id).textContent = err.message; }
  };

  async function signIn() {
    const account = await api('GET', '/v1/account');
    $('plan').textContent = account.data.plan + ' plan';
    $('signin').hidden = true; $('app').hidden = false; $('tabs').hidden = false; $('signout').hidden = false;
    await loadInboxes();
  }

  async function loadInboxes() {
    const { data } = await api('GET', '/v1/inboxes');
    $('inbox-rows').innerHTML = data.map((i) =>
      '<tr data-inbox="' + esc(i.address) + '"><td class="mono"><button class="link open">' + esc(i.address) + '</button></td><td>' + i.message_count +
      '</td><td>' + i.unread_count + '</td><td class="muted">' + esc(i.created_at) + '</td><td><button class="link danger delete">delete</button></td></tr>').join('');
  }

  async function openInbox(address) {
    current = address;
    $('messages').hidden = false; $('messages-inbox').textContent = address; $('message-body').hidden = true;
    const { data } = await api('GET', '/v1/inboxes/' + encodeURIComponent(address) + '/messages?limit=50');
    $('message-rows').innerHTML = data.map((m) =>
      '<tr data-id="' + esc(m.id) + '"><td>' + esc(m.from) + '</td><td><button class="link view">' + esc(m.subject || '(no subject)') + '</button></td><td class="otp">' + esc(m.otp ?? '') +
      '</td><td>' + (m.verification_link ? '<a href="' + esc(m.verification_link) + '" target="_blank" rel="noopener">open</a>' : '') +
      '</td><td class="muted">' + esc(m.date) + '</td><td><button class="link danger delete">delete</button></td></tr>').join('') ||
      '<tr><td colspan="6" class="muted">No messages yet.</td></tr>';
  }

  async function loadDomains() {
    const { data } = await api('GET', '/v1/custom-domains');
    $('domain-rows').innerHTML = data.map((d) =>
      '<tr data-domain="' + esc(d.domain) + '"><td class="mono">' + esc(d.domain) + '</td><td class="' + (d.verified ? 'ok' : 'muted') + '">' + (d.verified ? 'verified' : 'unverified') +
      '</td><td class="mono">MX 10 ' + esc(d.mx_record) + '<br>TXT ' + esc(d.txt_record) + '</td><td class="muted">' + esc(d.added_at) +
      '</td><td>' + (d.verified ? '' : '<button class="link verify">verify</button> ') + '<button class="link danger delete">delete</button></td></tr>').join('') ||
      '<tr><td colspan="5" class="muted">No custom domains.</td></tr>';
  }

  async function loadWebhooks() {
    const { data } = await api('GET', '/v1/webhooks?status=all');
    $('webhook-rows').innerHTML = data.map((w) =>
      '<tr data-id="' + esc(w._id) + '"><td class="mono">' + esc(w._id) + '</td><td class="mono">' + esc(w.inbox) + '</td><td class="mono">' + esc(w.url) +
      '</td><td>' + w.failureCount + '</td><td>' + (w.disabled ? 'disabled' : 'active') + '</td><td><button class="link danger delete">delete</button></td></tr>').join('') ||
      '<tr><td colspan="6" class="muted">No webhooks.</td></tr>';
  }

  $('signin-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    key = $('api-key').value.trim();
    try { await signIn(); sessionStorage.setItem('mailcue.key', key); } catch (err) { $('signin-error').textContent = err.message; }
  });
  $('signout').addEventListener('click', () => { sessionStorage.removeItem('mailcue.key'); location.reload(); });
  $('tabs').addEventListener('click', report('inbox-error', async (e) => {
    const tab = e.target.dataset?.tab; if (!tab) return;
    for (const b of $('tabs').querySelectorAll('button')) b.setAttribute('aria-selected', String(b.dataset.tab === tab));
    for (const t of ['inboxes', 'domains', 'webhooks']) $('tab-' + t).hidden = t !== tab;
    if (tab === 'inboxes') await loadInboxes();
    if (tab === 'domains') await report('domain-error', loadDomains)();
    if (tab === 'webhooks') await report('webhook-error', loadWebhooks)();
  }));
  $('inbox-form').addEventListener('submit', report('inbox-error', async (e) => {
    e.preventDefault();
    const address = $('inbox-address').value.trim();
    await api('POST', '/v1/inboxes', address ? { address } : {});
    $('inbox-address').value = '';
    await loadInboxes();
  }));
  $('inbox-rows').addEventListener('click', report('inbox-error', async (e) => {
    const address = e.target.closest('tr')?.dataset.inbox; if (!address) return;
    if (e.target.classList.contains('open')) await openInbox(address);
    if (e.target.classList.contains('delete')) { await api('DELETE', '/v1/inboxes/' + encodeURIComponent(address)); if (current === address) $('messages').hidden = true; await loadInboxes(); }
  }));
  $('messages-refresh').addEventListener('click', report('inbox-error', () => openInbox(current)));
  $('message-rows').addEventListener('click', report('inbox-error', async (e) => {
    const id = e.target.closest('tr')?.dataset.id; if (!id) return;
    const base = '/v1/inboxes/' + encodeURIComponent(current) + '/messages/' + id;
    if (e.target.classList.contains('view')) {
      const { data } = await api('GET', base);
      $('message-body').hidden = false;
      $('message-body').textContent = 'From: ' + data.from + '\\nSubject: ' + data.subject + '\\n\\n' + (data.text ?? '');
    }
    if (e.target.classList.contains('delete')) { await api('DELETE', base); await openInbox(current); }
  }));
  $('domain-form').addEventListener('submit', report('domain-error', async (e) => {
    e.preventDefault();
    await api('POST', '/v1/custom-domains', { domain: $('domain-name').value.trim() });
    $('domain-name').value = '';
    await loadDomains();
  }));
  $('domain-rows').addEventListener('click', report('domain-error', async (e) => {
    const domain = e.target.closest('tr')?.dataset.domain; if (!domain) return;
    if (e.target.classList.contains('verify')) await api('POST', '/v1/custom-domains/' + encodeURIComponent(domain) + '/verify');
    if (e.target.classList.contains('delete')) await api('DELETE', '/v1/custom-domains/' + encodeURIComponent(domain));
    await loadDomains();
  }));
  $('webhook-form').addEventListener('submit', report('webhook-error', async (e) => {
    e.preventDefault();
    await api('POST', '/v1/webhooks', { url: $('webhook-url').value.trim(), inbox: $('webhook-inbox').value.trim() });
    $('webhook-url').value = ''; $('webhook-inbox').value = '';
    await loadWebhooks();
  }));
  $('webhook-rows').addEventListener('click', report('webhook-error', async (e) => {
    const id = e.target.closest('tr')?.dataset.id; if (!id || !e.target.classList.contains('delete')) return;
    await api('DELETE', '/v1/webhooks/' + id);
    await loadWebhooks();
  }));

  if (key) signIn().catch(() => { sessionStorage.removeItem('mailcue.key'); key = null; });
})();
</script>
</body>
</html>`;
