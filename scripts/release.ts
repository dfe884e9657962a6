// Cuts a release: CHANGELOG.md's Unreleased section becomes the next version's, package.json (and
// its lock) take the version, and the commit is tagged v<version>. The version follows semver from
// what the section says: a major one when a bullet begins **Breaking:**, a minor one when it adds,
// changes, deprecates or removes anything, a patch otherwise. Refuses a dirty tree, an empty
// section, and API changes check:api refuses.
//   npm run release [-- --date YYYY-MM-DD]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { version as previous } from '../src/version.js';
import { breakingLine, judge, unreleasedHeading, unreleasedSection } from './api/api-changes.js';
import { changesSince, releaseCommit } from './api/release-baseline.js';

const root = new URL('../', import.meta.url);
const run = (command: string, ...args: string[]) => execFileSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const fail = (message: string): never => {
  console.error(`release: ${message}`);
  process.exit(1);
};

if (run('git', 'status', '--porcelain')) fail('the working tree has uncommitted changes');
const changelogUrl = new URL('CHANGELOG.md', root);
const changelog = readFileSync(changelogUrl, 'utf8');
const section = unreleasedSection(changelog)?.trim();
if (!section || !/^- /m.test(section)) fail("CHANGELOG.md's Unreleased section lists nothing to release");

const commit = releaseCommit(previous) ?? fail(`no commit of release ${previous}`);
const { problems } = judge((await changesSince(commit)).changes, changelog);
if (problems.length) fail(`check:api refuses the API changes:\n  ${problems.join('\n  ')}`);

const [major, minor, patch] = previous.split('.').map(Number);
const next = section!.split('\n').some((line) => breakingLine.test(line))
  ? `${major + 1}.0.0`
  : /^### (Added|Changed|Deprecated|Removed)\s*\n\s*- /m.test(section!)
    ? `${major}.${minor + 1}.0`
    : `${major}.${minor}.${patch + 1}`;
const dateArgument = process.argv.indexOf('--date');
const date = dateArgument > 0 ? process.argv[dateArgument + 1] : new Date().toISOString().slice(0, 10);

writeFileSync(
  changelogUrl,
  changelog.replace(unreleasedHeading, (heading) => `${heading}\n## ${next} - ${date}\n`),
);
run('npm', 'version', next, '--no-git-tag-version', '--allow-same-version');
run('git', 'commit', '--quiet', '-m', `Release ${next}`, '--', 'CHANGELOG.md', 'package.json', 'package-lock.json');
run('git', 'tag', '-a', `v${next}`, '-m', `Release ${next}`);
console.log(`Released ${next} (was ${previous}): commit and tag v${next} made; push both.`);
