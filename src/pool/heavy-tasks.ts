// The parse tasks of large mails (work-pool.ts): the same tasks, on threads that run below the
// event loops (thread-priority.ts), so a mail that takes its whole time bound delays no answer.
import { lowerThisThreadPriority } from './thread-priority.js';

lowerThisThreadPriority();

export * from './tasks.js';
