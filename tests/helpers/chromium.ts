import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser).
 * The test setup installs the package when it is missing (tests/setup/global-setup.ts).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Installs Debian's chromium when it is missing (as root, as CI runs); throws with the reason otherwise. */
export function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM_PATH)) return;
  if (process.getuid?.() !== 0) throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package (apt-get install chromium)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
}

/** Headless, with the flags that keep it off the network (this machine's network is closed). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
