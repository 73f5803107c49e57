// SEED.md's eleven tools and issue 36's create_inbox and wait_for_email, their compiled argument validators, and the tools/list entries built from the
// same schemas.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { normalizeAddress } from '../../../services/validate.js';
import { invalidParams } from '../jsonrpc.js';
import { createAndWaitForOtp } from './create-and-wait-for-otp.js';
import { createInbox } from './create-inbox.js';
import { deleteEmail } from './delete-email.js';
import { addCustomDomain, deleteCustomDomain, listCustomDomains, verifyCustomDomain } from './domain-tools.js';
import { extractOtp } from './extract-otp.js';
import { getLatestEmail } from './get-latest-email.js';
import { getMessages } from './get-messages.js';
import { listInboxes } from './list-inboxes.js';
import type { Tool } from './tool.js';
import { waitForEmail } from './wait-for-email.js';
import { watchEmail } from './watch-email.js';

export const TOOLS: readonly Tool<any>[] = [
  getLatestEmail, extractOtp, createAndWaitForOtp, watchEmail, getMessages, deleteEmail,
  listInboxes, listCustomDomains, addCustomDomain, verifyCustomDomain, deleteCustomDomain, createInbox, waitForEmail,
];

// `email` is the only format the schemas name, checked by the same parser as REST: a malformed
// address is -32602 at admission (HTTP 400), before a long-poll tool opens its SSE answer (HTTP 200).
const ajv = new Ajv({ useDefaults: true, strict: false, allErrors: false, formats: { email: (value: string) => normalizeAddress(value) !== null } });
const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
const byName = new Map(TOOLS.map((t) => [t.name, t]));

export function findTool(name: string): Tool<any> | undefined {
  return byName.get(name);
}

function describe(error: ErrorObject): string {
  const param = error.instancePath.replace(/^\//, '') || (error.params as { missingProperty?: string }).missingProperty || 'arguments';
  switch (error.keyword) {
    case 'required':
      return `Missing required parameter: ${(error.params as { missingProperty: string }).missingProperty}`;
    case 'minimum':
    case 'maximum':
      return `${param} ${error.message}`;
    case 'type':
      return `${param} ${error.message}`;
    case 'format':
      return `${param} must be an email address`;
    default:
      return `${param}: ${error.message ?? 'invalid'}`;
  }
}

/** Validates (and fills defaults into) a copy of the arguments; throws -32602 naming the parameter. */
export function validateArguments(tool: Tool<any>, args: unknown): Record<string, unknown> {
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) throw invalidParams('arguments must be an object');
  const copy: Record<string, unknown> = Object.assign({}, args as Record<string, unknown> | undefined);
  const validate = validators.get(tool.name)!;
  if (!validate(copy)) throw invalidParams(describe(validate.errors![0]!));
  return copy;
}

export function toolList() {
  return TOOLS.map((t) => ({
    name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema,
    annotations: { title: t.title, ...t.hints },
  }));
}
