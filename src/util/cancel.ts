// The little of AbortSignal that Mailcue uses, so a parked long-poll can carry a one-field
// cancellation instead of an AbortController and its EventTarget (a real AbortSignal fits too).
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

/** A one-shot cancellation with at most a few listeners. */
export class Cancellation implements CancelSignal {
  private listeners: (() => void)[] | null = null;
  aborted = false;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) listener();
    else (this.listeners ??= []).push(listener);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const l of listeners) l();
  }
}
