// `npm test` set-up beyond npm: Debian's Chromium for the dashboard's Playwright tests, Debian's
// etcd-server for the cluster tests and zsh for the CLI completion test. Installs what is missing with apt when we are root; otherwise
// says what to do.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

function onPath(bin) {
  try {
    execSync(`command -v ${bin}`, { stdio: 'ignore', shell: '/bin/sh' });
    return true;
  } catch {
    return false;
  }
}

const missing = [];
const e2e = readdirSync(new URL('../test/e2e/', import.meta.url));
if (e2e.some((f) => f.startsWith('dashboard')) && !existsSync(CHROMIUM)) missing.push({ pkg: 'chromium', why: 'the dashboard tests' });
if (!onPath('etcd')) missing.push({ pkg: 'etcd-server', why: 'the cluster tests' });
// zsh, to run the `mailcue completion zsh` script in the CLI tests.
if (!existsSync('/usr/bin/zsh') && !existsSync('/bin/zsh')) missing.push({ pkg: 'zsh', why: 'the CLI completion test' });

if (missing.length > 0) {
  const pkgs = missing.map((m) => m.pkg).join(' ');
  const why = missing.map((m) => m.why).join(' and ');
  if (process.getuid?.() === 0) {
    console.log(`test-setup: installing Debian ${pkgs} for ${why}`);
    execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkgs} >/dev/null`, { stdio: 'inherit' });
  } else {
    console.warn(`test-setup: install Debian's ${pkgs} (sudo apt-get install ${pkgs}) for ${why}`);
  }
}
