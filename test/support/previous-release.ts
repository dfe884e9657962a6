import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/db/paths.js';
import { isShallowClone, releaseCommit } from '../../scripts/api/release-baseline.js';

export interface PreviousRelease {
  version: string;
  commit: string;
  /** Its files, built: `dist/main.js` is its gateway, `dist/cli.js` its CLI. */
  root: string;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: projectRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

/**
 * The last release (package.json's version, as scripts/release.ts cut it), checked out and built in
 * the system's temporary folder (esbuild reads no tsconfig.json under a node_modules folder, and the
 * decorators need it). Its packages are this project's, linked, when the release's lock names the
 * same versions of every package it runs with, and an install of its own otherwise. `missing` says
 * why there is none: a clone that does not hold the release's commit.
 */
export function previousRelease(): PreviousRelease | { missing: string } {
  const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const commit = releaseCommit(version);
  if (!commit) return { missing: isShallowClone() ? `release ${version} is not in this shallow clone (git fetch --unshallow)` : `no commit of release ${version}` };
  const root = path.join(os.tmpdir(), `marquee-release-${version}-${commit.slice(0, 12)}`);
  const ownPackages = path.join(projectRoot, 'node_modules');
  if (!fs.existsSync(path.join(root, 'dist', 'main.js')) || !packagesPresent(root, ownPackages)) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C '${root}'`], { cwd: projectRoot });
    if (sameProductionPackages(commit)) fs.symlinkSync(ownPackages, path.join(root, 'node_modules'), 'dir');
    else execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'inherit' });
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return { version, commit, root };
}

/**
 * Whether a build left by an earlier run still has its packages. The build outlives the checkout
 * that made it (it sits in the temporary folder), and a link to that checkout's packages dangles
 * once the checkout is gone, or names another checkout's, whose lock may differ.
 */
function packagesPresent(root: string, ownPackages: string): boolean {
  const packages = path.join(root, 'node_modules');
  const entry = fs.lstatSync(packages, { throwIfNoEntry: false });
  if (!entry) return false;
  if (!entry.isSymbolicLink()) return true;
  return fs.readlinkSync(packages) === ownPackages && fs.existsSync(packages);
}

/** Whether every package the release runs with (not its dev tools) is at the same version in this project's lock. */
function sameProductionPackages(commit: string): boolean {
  type Lock = { packages: Record<string, { version?: string; dev?: boolean }> };
  const released = JSON.parse(git('show', `${commit}:package-lock.json`)) as Lock;
  const current = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as Lock;
  return Object.entries(released.packages).every(([name, entry]) => name === '' || entry.dev || current.packages[name]?.version === entry.version);
}
