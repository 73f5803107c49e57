// A session's event stream as the code answering on it sees it: an SseStream on this front thread,
// or one a sibling thread holds (front-threads.ts) for a legacy SSE session.
export interface SessionStream {
  readonly isClosed: boolean;
  message(value: unknown): void;
  messageText(json: string): void;
  onClose(handler: () => void): void;
  close(): void;
}
