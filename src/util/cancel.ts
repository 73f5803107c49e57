// The little of AbortSignal that Mailcue uses, so a parked long-poll can carry a one-field
// cancellation instead of an AbortController and its EventTarget (a real AbortSignal fits too).

/** A function, or an object with handleEvent() (the DOM's EventListener), so a record can listen without a closure. */
export type AbortListener = (() => void) | { handleEvent(): void };

export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
}

function notify(listener: AbortListener): void {
  if (typeof listener === 'function') listener();
  else listener.handleEvent();
}

/** A one-shot cancellation with at most a few listeners (one, on a parked long-poll: kept without an array). */
export class Cancellation implements CancelSignal {
  private listeners: AbortListener | AbortListener[] | null = null;
  aborted = false;

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.aborted) notify(listener);
    else if (this.listeners === null) this.listeners = listener;
    else if (Array.isArray(this.listeners)) this.listeners.push(listener);
    else this.listeners = [this.listeners, listener];
  }

  /** A listener that no longer needs to hear (an HTTP client's request that finished, for one). */
  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.listeners === listener) this.listeners = null;
    else if (Array.isArray(this.listeners)) {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    }
  }

  /** As a listener of another signal: aborts with it (no closure needed to chain two). */
  handleEvent(): void {
    this.abort();
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = null;
    if (Array.isArray(listeners)) for (const l of listeners) notify(l);
    else if (listeners) notify(listeners);
  }
}
