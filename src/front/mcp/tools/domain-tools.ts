// The four custom-domain tools: the same service functions and data as /v1/custom-domains.
import * as domains from '../../../services/domains.js';
import { customDomainSchema, defineTool, dnsRecordSchema, READS } from './tool.js';

const domainArg = { type: 'string', description: 'Domain name, e.g. mail.example.com' } as const;

export const listCustomDomains = defineTool<Record<string, never>>({
  name: 'list_custom_domains',
  readOnly: true,
  title: 'List custom domains',
  hints: READS,
  description: 'Lists all custom domains of the account with their verification state and DNS records.',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { count: { type: 'integer' }, domains: { type: 'array', items: customDomainSchema } }, required: ['count', 'domains'] },
  async run({ deps, caller }) {
    const list = await domains.listDomains(deps, caller);
    return { count: list.length, domains: list };
  },
});

export const addCustomDomain = defineTool<{ domain: string }>({
  name: 'add_custom_domain',
  title: 'Add a custom domain',
  // SEED.md: adding a domain already on the account returns it unchanged.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: 'Adds a custom domain and returns the MX and TXT records to publish before verifying it.',
  inputSchema: { type: 'object', properties: { domain: domainArg }, required: ['domain'] },
  outputSchema: {
    type: 'object',
    properties: {
      ...customDomainSchema.properties, created: { type: 'boolean' }, dns_records: { type: 'array', items: dnsRecordSchema }, next_step: { type: 'string' },
    },
    required: [...customDomainSchema.required, 'dns_records', 'next_step'],
  },
  async run({ deps, caller }, args) {
    const { created, domain } = await domains.addDomain(deps, caller, args.domain);
    return { ...domain, created };
  },
});

export const verifyCustomDomain = defineTool<{ domain: string }>({
  name: 'verify_custom_domain',
  title: 'Verify a custom domain',
  // A live DNS lookup: the outcome depends on the domain's published records.
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: 'Checks the domain\'s MX and TXT records by live DNS lookup; once verified, inboxes can be created at it.',
  inputSchema: { type: 'object', properties: { domain: domainArg }, required: ['domain'] },
  outputSchema: customDomainSchema,
  async run({ deps, caller }, args) {
    return { ...(await domains.verifyDomain(deps, caller, args.domain)) };
  },
});

export const deleteCustomDomain = defineTool<{ domain: string }>({
  name: 'delete_custom_domain',
  title: 'Delete a custom domain',
  // Unregisters every inbox at the domain with its mail.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: 'Deletes a custom domain and unregisters every inbox at it.',
  inputSchema: { type: 'object', properties: { domain: domainArg }, required: ['domain'] },
  outputSchema: {
    type: 'object',
    properties: { domain: { type: 'string' }, inboxes_removed: { type: 'array', items: { type: 'string' } } },
    required: ['domain', 'inboxes_removed'],
  },
  async run({ deps, caller }, args) {
    return { ...(await domains.deleteDomain(deps, caller, args.domain)) };
  },
});
