// `mailcue completion bash|zsh`: completion scripts generated from the command tree itself, so
// they never drift from the commands. Install: `source <(mailcue completion bash)` in ~/.bashrc,
// or `mailcue completion zsh > "${fpath[1]}/_mailcue"`.
import type { Command } from 'commander';
import { CliError } from './errors.js';

interface Node {
  path: string;
  subcommands: { name: string; description: string }[];
  options: string[];
}

function walk(cmd: Command, prefix: string, into: Node[]): void {
  const longs = cmd.options.map((o) => o.long).filter((l): l is string => typeof l === 'string');
  let globals: string[] = [];
  for (let p = cmd.parent; p; p = p.parent) globals = globals.concat(p.options.map((o) => o.long).filter((l): l is string => typeof l === 'string'));
  const subs = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
  into.push({
    path: prefix,
    subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
    options: [...new Set([...longs, ...globals, '--help'])],
  });
  for (const c of subs) walk(c, prefix ? `${prefix} ${c.name()}` : c.name(), into);
}

const quoteCase = (path: string) => `'${path}'`;

function bash(nodes: Node[]): string {
  const known = nodes.filter((n) => n.path !== '').map((n) => quoteCase(n.path)).join('|');
  const cases = nodes.map((n) => `    ${n.path === '' ? "''" : quoteCase(n.path)}) words='${[...n.subcommands.map((s) => s.name), ...n.options].join(' ')}' ;;`).join('\n');
  return `# bash completion for mailcue: source <(mailcue completion bash)
_mailcue() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" cand words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ "\${COMP_WORDS[i]}" == -* ]] && continue
    cand="\${cmdpath:+$cmdpath }\${COMP_WORDS[i]}"
    case "$cand" in
      ${known}) cmdpath="$cand" ;;
    esac
  done
  case "$cmdpath" in
${cases}
    *) words='' ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [[ \${#COMPREPLY[@]} -eq 0 ]] && compopt -o default 2>/dev/null
  return 0
}
complete -F _mailcue mailcue
`;
}

function zsh(nodes: Node[]): string {
  const known = nodes.filter((n) => n.path !== '').map((n) => `"${n.path}"`).join('|');
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/'/g, "'\\''").replace(/:/g, '\\:');
  const cases = nodes.map((n) => {
    const cmds = n.subcommands.map((s) => `'${esc(s.name)}:${esc(s.description)}'`).join(' ');
    return `    (${n.path === '' ? "''" : `"${n.path}"`}) cmds=(${cmds}); opts=(${n.options.join(' ')}) ;;`;
  }).join('\n');
  return `#compdef mailcue
# zsh completion for mailcue: mailcue completion zsh > "\${fpath[1]}/_mailcue" (or source it after compinit)
_mailcue() {
  local cmdpath="" cand i
  local -a cmds opts
  for ((i = 2; i < CURRENT; i++)); do
    [[ "\${words[i]}" == -* ]] && continue
    cand="\${cmdpath:+$cmdpath }\${words[i]}"
    case "$cand" in
      (${known}) cmdpath="$cand" ;;
    esac
  done
  case "$cmdpath" in
${cases}
    (*) cmds=(); opts=() ;;
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- \${opts[@]}
  elif (( \${#cmds} > 0 )); then
    _describe 'command' cmds
  else
    _files
  fi
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then _mailcue "$@"; else compdef _mailcue mailcue; fi
`;
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash or zsh)')
    .argument('<shell>', 'bash or zsh')
    .addHelpText('after', `
Install:
  bash:  echo 'source <(mailcue completion bash)' >> ~/.bashrc
  zsh:   mailcue completion zsh > "\${fpath[1]}/_mailcue"   # then restart the shell`)
    .action((shell: string) => {
      const nodes: Node[] = [];
      walk(program, '', nodes);
      if (shell === 'bash') process.stdout.write(bash(nodes));
      else if (shell === 'zsh') process.stdout.write(zsh(nodes));
      else throw new CliError('usage', `no completion for "${shell}": use bash or zsh`);
    });
}
