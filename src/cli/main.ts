#!/usr/bin/env node
// `mailcue`: the server entry points (serve, front, shard, admin) and the REST client (inbox,
// messages, wait, domains, webhooks, account, login), one commander tree so `--help` and shell
// completion cover everything. Server code is loaded only when a server command runs.
import { Command, CommanderError } from 'commander';
import { registerAccount } from './client/account.js';
import { registerCompletion } from './client/completion.js';
import { DEFAULT_URL } from './client/connection.js';
import { registerDomains } from './client/domains.js';
import { CliError, EXIT, EXIT_CODES_HELP, EXIT_CODES_SHORT } from './client/errors.js';
import { registerInbox } from './client/inbox.js';
import { registerKeys } from './client/keys.js';
import { registerMessages } from './client/messages.js';
import { Output } from './client/output.js';
import { registerWait } from './client/wait.js';
import { registerWebhooks } from './client/webhooks.js';
import { parseArgs } from './args.js';

// Every file any process of Mailcue creates is 0600, its directories 0700 (DESIGN §7, issue 33):
// set first, before a shard started through etcd, a key file or a log could create one.
process.umask(0o077);

const VERSION = '0.1.0';
const SERVER_COMMANDS = ['serve', 'shard', 'front', 'admin'] as const;
type ServerCommand = (typeof SERVER_COMMANDS)[number];

/** Server commands keep their own argument reading; commander only documents them. */
function runServer(command: ServerCommand): () => Promise<void> {
  return async () => {
    const argv = process.argv.slice(2);
    const { runServerCommand } = await import('./server.js');
    const code = await runServerCommand(command, parseArgs(argv.slice(argv.indexOf(command) + 1)));
    if (code !== 0) process.exitCode = code;
  };
}

function registerServer(program: Command): void {
  program.command('serve').description('run the service: front tier + MAILCUE_SHARD_COUNT shard threads (configured by MAILCUE_* env)')
    .action(runServer('serve'));
  program.command('shard').description('run one shard process of a cluster (with MAILCUE_ETCD_ENDPOINTS it joins through etcd)')
    .requiredOption('--id <k>', 'shard number, or the member name in an etcd cluster (e.g. the pod name)').requiredOption('--listen <host:port>', 'gRPC listen address')
    .option('--advertise <host:port>', 'address other cluster processes dial (etcd cluster; default --listen)')
    .option('--data <dir>', 'data directory')
    .option('--insecure', 'allow a non-loopback listen address without MAILCUE_TLS_* (plaintext gRPC)')
    .action(runServer('shard'));
  program.command('front').description('run a front process (REST, MCP, SMTP) of a cluster')
    .option('--shards <map>', 'shard map, e.g. 0=HOST:PORT,1=HOST:PORT (default MAILCUE_SHARDS; not needed with MAILCUE_ETCD_ENDPOINTS)')
    .action(runServer('front'));
  const admin = program.command('admin').description('administer accounts over gRPC to the running shards');
  admin.command('create-account').description('create an account and print its API key (shown once)')
    .requiredOption('--plan <plan>', 'free, developer, startup, growth or enterprise').option('--name <name>', 'account name')
    .action(runServer('admin'));
  admin.command('set-plan').description("change an account's plan").argument('<account_id>').argument('[plan]').option('--plan <plan>', 'the new plan')
    .action(runServer('admin'));
  admin.command('rotate-key').description('issue a new API key; the old one stops working').argument('<account_id>')
    .action(runServer('admin'));
  const cluster = admin.command('cluster').description('an etcd cluster (MAILCUE_ETCD_ENDPOINTS): members, slots, moves');
  cluster.command('status').description('members, slots per member, moves in progress (--json: one document)')
    .action(runServer('admin'));
  cluster.command('drain').description("move a member's slots away so it can stop; waits until it holds none").argument('<member_id>')
    .option('--no-wait', 'return once the drain is requested')
    .action(runServer('admin'));
}

function buildProgram(): Command {
  const program = new Command('mailcue')
    .description('Mailcue: email inboxes for AI agents and test automation — server and command-line client')
    .version(VERSION)
    .option('--url <url>', `service URL (env MAILCUE_URL, else the login profile, else ${DEFAULT_URL})`)
    .option('--api-key <key>', 'API key (env MAILCUE_API_KEY, else the login profile)')
    .option('--json', "print the API's data as one JSON document")
    .option('-q, --quiet', 'print only identifiers (addresses, ids, codes)')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .addHelpText('after', `
Output: tables on a terminal, tab-separated rows when piped, --json for scripts. Colour only on a
terminal, never with NO_COLOR set.

${EXIT_CODES_HELP}

Examples:
  mailcue login --url https://mail.example.com
  INBOX=$(mailcue inbox create)
  CODE=$(mailcue wait "$INBOX" --since start --otp --timeout 120)
  mailcue messages list "$INBOX" --json`);
  program.exitOverride();
  registerInbox(program);
  registerMessages(program);
  registerWait(program);
  registerDomains(program);
  registerWebhooks(program);
  registerAccount(program);
  registerKeys(program);
  registerCompletion(program);
  registerServer(program);
  // Every subcommand: the exit-code table under its help, and usage errors thrown, not exited.
  const each = (cmd: Command) => {
    for (const c of cmd.commands) {
      c.exitOverride();
      c.showHelpAfterError('(run with --help for usage)');
      if (c.commands.length === 0) c.addHelpText('after', `\n${EXIT_CODES_SHORT}`);
      each(c);
    }
  };
  each(program);
  return program;
}

async function main(): Promise<void> {
  const program = buildProgram();
  if (process.argv.length <= 2) {
    program.outputHelp();
    return;
  }
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; everything else commander reports is a usage error.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const json = process.argv.includes('--json');
    const out = new Output({ json, quiet: false });
    if (err instanceof CliError) {
      out.error(err);
      process.exitCode = err.exitCode;
      return;
    }
    throw err;
  }
}

// A stray rejection (a background LMDB write, a socket error) is logged, not fatal: one bad
// request must not take every connection of the process down with it.
process.on('unhandledRejection', (reason) => {
  console.error(JSON.stringify({ level: 50, time: Date.now(), msg: 'unhandled rejection', err: String((reason as Error)?.stack ?? reason) }));
});

// `mailcue inbox list | head -1`: a reader that has gone away is not an error of ours.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

main().catch((err: unknown) => {
  console.error(`mailcue: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
