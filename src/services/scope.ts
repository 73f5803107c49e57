// What a scoped key may do (issue 36, src/contract/keys.ts), checked by the service functions that
// REST and the agent tools share, so both answer alike: REST 403 `scope_denied`, MCP a tool result
// with isError. An unscoped caller (the account's API key, or a token it granted) passes every
// check at no cost; a scoped one limited to the inboxes it creates costs one read of the inbox's
// creator on the inbox's shard.
import type { Admission } from '../contract/results.js';
import { fail } from '../errors/registry.js';
import type { Caller, Deps } from './deps.js';

export type Access = 'read' | 'write';

/** The caller an admission found: its account, and its scope when the credential has one. */
export function callerOf(admission: Admission): Caller {
  return admission.scope ? { accountId: admission.account.id, scope: admission.scope } : { accountId: admission.account.id };
}

function denied(message: string): never {
  fail('scope_denied', message);
}

/** Managing keys: only the account's own API key (a scoped key could otherwise widen itself). */
export function requireAccountKey(caller: Caller, what: string): void {
  if (caller.scope) denied(`A scoped key cannot ${what}; use the account's API key`);
}

/** An account-wide change (custom domains): a key that reaches every inbox and may write. */
export function requireAccountWide(caller: Caller, what: string): void {
  const s = caller.scope;
  if (!s) return;
  requireWrite(caller, what);
  if (s.inboxes !== null) denied(`This key is limited to some inboxes: it cannot ${what}`);
}

/** Any change: refused to a read-only key. */
export function requireWrite(caller: Caller, what: string): void {
  if (caller.scope?.read_only) denied(`This key is read-only: it cannot ${what}`);
}

/** Whether a scoped caller may use an inbox: it reaches every inbox, lists it, or created it. */
export async function inScope(deps: Deps, caller: Caller, address: string): Promise<boolean> {
  const s = caller.scope;
  if (!s || s.inboxes === null || s.inboxes.includes(address)) return true;
  if (!s.created_inboxes) return false;
  const creator = await deps.cluster.call({ type: 'inbox.creator', accountId: caller.accountId, address });
  return creator === s.key_id;
}

/** Refuses an inbox outside the caller's scope, or a write by a read-only key. */
export async function requireInbox(deps: Deps, caller: Caller, address: string, access: Access): Promise<void> {
  const s = caller.scope;
  if (!s) return;
  if (access === 'write' && s.read_only) denied(`This key is read-only: it cannot change ${address}`);
  if (!(await inScope(deps, caller, address))) denied(`This key may not use the inbox ${address}`);
}

/** Runs `work` once the caller may use the inbox; an unscoped caller runs it at once. */
export function withinScope<T>(deps: Deps, caller: Caller, address: string, access: Access, work: () => Promise<T>): Promise<T> {
  if (!caller.scope) return work();
  return requireInbox(deps, caller, address, access).then(work);
}

/** Creating an inbox (at `address`, or a random one for null). */
export function requireCreate(caller: Caller, address: string | null): void {
  const s = caller.scope;
  if (!s) return;
  if (s.read_only) denied('This key is read-only: it cannot create inboxes');
  if (s.inboxes === null || s.created_inboxes || (address !== null && s.inboxes.includes(address))) return;
  denied(address === null ? 'This key may not create inboxes' : `This key may not create the inbox ${address}`);
}

/** What an inbox created by this caller records as its creator (a scoped key's id). */
export function creatorOf(caller: Caller): string | undefined {
  return caller.scope?.key_id;
}

/** The inbox listing's filter for a scoped caller limited to some inboxes. */
export function listFilter(caller: Caller): { addresses: string[]; createdBy: string | null } | undefined {
  const s = caller.scope;
  if (!s || s.inboxes === null) return undefined;
  return { addresses: s.inboxes, createdBy: s.created_inboxes ? s.key_id : null };
}
