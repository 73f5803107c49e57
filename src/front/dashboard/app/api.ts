// The REST API as the page uses it: the key lives in this tab's session storage, every call sends
// it as a bearer token, and a 401 (expired or rotated key) signs the page out with a message.
const KEY = 'mailcue.key';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly body: Record<string, unknown>) {
    super(message);
  }
}

let onSignedOut: (reason: string) => void = () => undefined;

export const session = {
  get key(): string | null {
    return sessionStorage.getItem(KEY);
  },
  set(key: string): void {
    sessionStorage.setItem(KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
  onSignedOut(handler: (reason: string) => void): void {
    onSignedOut = handler;
  },
};

export const enc = encodeURIComponent;

function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${session.key ?? ''}`, ...extra };
}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  const err = new ApiError(res.status, String(body.error ?? res.status), String(body.message ?? `HTTP ${res.status}`), body);
  if (res.status === 401 && session.key) {
    session.clear();
    onSignedOut('Your API key was not accepted any more (it may have been rotated). Sign in with the current key.');
  }
  return err;
}

export async function api<T = Record<string, any>>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: authHeaders(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** A binary answer (raw source, attachment) with the same credentials. */
export async function apiBlob(path: string): Promise<Blob> {
  const res = await fetch(path, { headers: authHeaders() });
  if (!res.ok) throw await failure(res);
  return res.blob();
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof TypeError) return 'The server cannot be reached; retrying when it is back.';
  return err instanceof Error ? err.message : String(err);
}
