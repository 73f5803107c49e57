// The dashboard's entry: sign-in, the section navigation, and the live stream that keeps whatever
// is on screen current. Each section is a view with show() and refresh().
import { api, errorText, session } from './api.js';
import { AccountView } from './account-view.js';
import { $, clearError, showError } from './dom.js';
import { DomainsView } from './domains-view.js';
import { InboxesView } from './inboxes-view.js';
import { Live, type Change } from './live.js';
import { go, interceptLinks, onPlaceChange, parsePlace, pathOf, type Section } from './router.js';
import { WebhooksView } from './webhooks-view.js';

const inboxes = new InboxesView();
const domains = new DomainsView();
const webhooks = new WebhooksView();
const account = new AccountView();
const TITLES: Record<Section, string> = { inboxes: 'Inboxes', domains: 'Domains', webhooks: 'Webhooks', account: 'Account' };
let section: Section | null = null;
/** Refreshes wait this long so a burst of mail costs one reload, not one per message. */
const REFRESH_COALESCE_MS = 150;
let pending: Change[] = [];
let pendingAll = false;
let refreshTimer = 0;
/** The account page's per-minute figures change without events; refreshed while it is shown. */
let accountTimer = 0;

const live = new Live({
  ready: () => schedule([], true),
  changed: (changes) => schedule(changes, false),
});

function schedule(changes: Change[], all: boolean): void {
  pending.push(...changes);
  pendingAll ||= all;
  if (refreshTimer) return;
  refreshTimer = window.setTimeout(() => {
    refreshTimer = 0;
    const batch = pending;
    const everything = pendingAll;
    pending = [];
    pendingAll = false;
    void refresh(batch, everything);
  }, REFRESH_COALESCE_MS);
}

async function refresh(changes: Change[], all: boolean): Promise<void> {
  if (!session.key) return;
  const kinds = new Set(changes.map((c) => c.kind));
  if (section === 'inboxes' && (all || kinds.has('inbox'))) {
    await inboxes.refresh(all ? 'all' : new Set(changes.filter((c) => c.inbox).map((c) => c.inbox!)));
  } else if (section === 'domains' && (all || kinds.has('domains'))) await domains.refresh();
  else if (section === 'webhooks' && (all || kinds.size > 0)) await webhooks.refresh();
  else if (section === 'account') await account.refresh();
}

async function render(): Promise<void> {
  if (!session.key) return;
  const place = parsePlace(location);
  if (location.pathname === '/' || location.pathname === '/dashboard' || location.pathname === '/dashboard/') {
    history.replaceState(null, '', pathOf(place));
  }
  const changed = place.section !== section;
  section = place.section;
  document.title = `${place.inbox ?? TITLES[place.section]} · Mailcue`;
  for (const a of $('nav').querySelectorAll<HTMLAnchorElement>('a')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  clearInterval(accountTimer);
  const view = { inboxes, domains, webhooks, account }[section];
  if (changed) {
    clearError();
    $('app').replaceChildren(view.root);
  }
  if (section === 'account') accountTimer = window.setInterval(() => void account.refresh(), 10_000);
  if (section === 'inboxes') await inboxes.show(place, changed);
  else await (view as DomainsView | WebhooksView | AccountView).show();
}

function showSignIn(reason: string | null): void {
  live.stop();
  section = null;
  $('app').hidden = true;
  $('app').replaceChildren();
  $('nav').hidden = true;
  $('signout').hidden = true;
  $('signin').hidden = false;
  const why = $('signin-reason');
  why.hidden = !reason;
  why.textContent = reason ?? '';
  document.title = 'Sign in · Mailcue';
  $<HTMLInputElement>('api-key').focus();
}

async function signIn(): Promise<void> {
  await api('GET', '/v1/account');
  $('signin').hidden = true;
  $('app').hidden = false;
  $('nav').hidden = false;
  $('signout').hidden = false;
  await render();
  live.start();
}

session.onSignedOut((reason) => showSignIn(reason));
onPlaceChange(() => void render().catch((err) => showError(errorText(err))));
interceptLinks(document.body);

$('signin-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = $<HTMLInputElement>('api-key');
  session.set(input.value.trim());
  $('signin-error').textContent = '';
  signIn().then(() => (input.value = ''), (err) => {
    session.clear();
    $('signin-error').textContent = errorText(err);
  });
});
$('signout').addEventListener('click', () => {
  session.clear();
  showSignIn(null);
  go('/dashboard', true);
});

if (session.key) {
  signIn().catch((err) => {
    if (session.key) showError(errorText(err));
  });
} else {
  showSignIn(null);
}
