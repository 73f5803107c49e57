// `npm test` set-up beyond npm: Debian's Chromium for the dashboard's Playwright tests.
// Installs it with apt when missing and we are root; otherwise says what to do.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

const needsBrowser = readdirSync(new URL('../test/e2e/', import.meta.url)).some((f) => f.startsWith('dashboard'));

if (needsBrowser && !existsSync(CHROMIUM)) {
  if (process.getuid?.() === 0) {
    console.log('test-setup: installing Debian chromium for the dashboard tests');
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null', { stdio: 'inherit' });
  } else {
    console.warn(`test-setup: ${CHROMIUM} is missing; install Debian's chromium (sudo apt-get install chromium) for the dashboard tests`);
  }
}

// zsh, to run the `mailcue completion zsh` script in the CLI tests.
if (!existsSync('/usr/bin/zsh') && !existsSync('/bin/zsh')) {
  if (process.getuid?.() === 0) {
    console.log('test-setup: installing zsh for the CLI completion test');
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh >/dev/null', { stdio: 'inherit' });
  } else {
    console.warn('test-setup: zsh is missing; install it (sudo apt-get install zsh) for the CLI completion test');
  }
}
