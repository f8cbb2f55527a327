import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch';
import { describe, expect, it } from 'vitest';
import { SOURCE_FOLDERS, classify, type Repository } from '../../scripts/check-docs/classify';
import { extractCommands, extractPathMentions, type DocCommand } from '../../scripts/check-docs/markdown';
import { pipelineStatus } from '../../scripts/check-docs/run';
import { segments } from '../../scripts/check-docs/shell';
import { ROOT } from '../../tools/processes';

const repo: Repository = { root: ROOT, scripts: { start: 'x', test: 'x', 'ops:credentials': 'x', 'ops:report': 'x', check: 'x', 'dev:worker': 'x' } };
const command = (text: string, online = false): DocCommand => ({ file: 'doc.md', line: 1, text, online, block: 0 });

describe('reading the docs', () => {
  it('takes the commands of shell blocks only, with their lines, continuations joined and comments dropped', () => {
    const md = [
      '# Title', //                                   1
      '```sh', //                                     2
      'npm start   # the gateway', //                 3
      '', //                                          4
      'curl -s http://localhost:8787/v2/species \\', // 5
      "  -H 'Authorization: ApiKey #not-a-comment'", // 6
      '# only a comment', //                          7
      '```', //                                       8
      '```json', //                                   9
      '{"not": "a command"}', //                      10
      '```', //                                       11
      '  ~~~sh online', //                            12
      '  npx wrangler deploy', //                     13
      '  # HTTP/1.1 200 OK', //                       14
      '  curl -s http://localhost:8787/', //          15
      '  # HTTP/1.1 404 Not Found', //                16
      '  ~~~', //                                     17
    ].join('\n');
    expect(extractCommands('doc.md', md)).toEqual([
      { file: 'doc.md', line: 3, text: 'npm start', online: false, block: 0 },
      { file: 'doc.md', line: 5, text: "curl -s http://localhost:8787/v2/species -H 'Authorization: ApiKey #not-a-comment'", online: false, block: 0 },
      { file: 'doc.md', line: 13, text: 'npx wrangler deploy', online: true, block: 1, expect: '200' },
      { file: 'doc.md', line: 15, text: 'curl -s http://localhost:8787/', online: true, block: 1, expect: '404' },
    ]);
  });

  it('finds relative links and source paths in code spans, outside code blocks', () => {
    const md =
      'See [the guide](docs/guide.md#top), [site](https://example.com) and `src/app.ts`,\nnot `npm test` nor `credentials.json`.\n```\nsrc/inside-a-block.ts\n```\n';
    expect(extractPathMentions('README.md', md, SOURCE_FOLDERS).map((m) => [m.line, m.path, m.kind])).toEqual([
      [1, 'docs/guide.md', 'link'],
      [1, 'src/app.ts', 'code'],
    ]);
  });

  it('sees every program of a command line: pipes, lists, command substitutions, assignments', () => {
    const parts = segments(`TOKEN=$(curl -s 'http://x/a?b=1&c=2' | jq -r .t) && npm run --silent ops:report -- "a b" 2>&1 | head -c 10; echo "$(printf %s x)"`);
    expect(parts.map((s) => s.words[0] ?? `(${s.assignments.join(' ')})`)).toEqual(['curl', 'jq', '(TOKEN=$(…))', 'npm', 'head', 'printf', 'echo']);
    expect(parts[0]!.words).toEqual(['curl', '-s', 'http://x/a?b=1&c=2']);
    expect(parts[3]!.words).toEqual(['npm', 'run', '--silent', 'ops:report', '--', 'a b', '2>&1']);
  });
});

describe("a pipeline's status", () => {
  it.each([
    [[0], 0],
    [[0, 2], 2],
    [[2, 0], 2],
    [[23, 0], 0],
    [[141, 0, 0], 0],
    [[0, 141], 141],
    [[23, 4], 4],
  ])('%j is %i', (statuses, status) => expect(pipelineStatus(statuses)).toBe(status));
});

describe('classifying a documented command', () => {
  it.each([
    ['npm run ops:credentials -- list --file c.json', 'run', []],
    ['SECRET=$(npm run --silent ops:credentials -- create project a --file c.json)', 'run', []],
    ["curl -s http://localhost:8787/v2/species | jq '.data[0]'", 'run', []],
    ['npm start', 'start', []],
    ['npm run check', 'run', []],
    ['sudo cp deploy/no-such.service /etc/systemd/system/', 'static', ['deploy/no-such.service does not exist']],
    ['PORT=8788 npm start', 'start', []],
    ['npm ci && npm start', 'static', []],
    ['npm run dev:worker -- --port 8788', 'static', []],
    ['npm run deploy-everything', 'static', ['npm run deploy-everything: package.json has no script "deploy-everything"']],
    ['npx left-pad-cli', 'static', ['npx left-pad-cli: not installed by npm ci (npx would download it)']],
    ['npx tsx scripts/no-such-script.ts', 'static', ['scripts/no-such-script.ts does not exist']],
    ['curl -s https://gateway.example/v2/species', 'online', ['needs the network or a Cloudflare account: mark its block ```sh online']],
    ['npx wrangler secret put TOKEN_SIGNING_SECRET', 'static', ['needs the network or a Cloudflare account: mark its block ```sh online']],
    ['LEGACY_V1_URL=https://legacy.internal/v1 npm start', 'start', ['needs the network or a Cloudflare account: mark its block ```sh online']],
  ])('%s: %s', (text, verdict, problems) => {
    const got = classify(command(text), repo);
    expect(got.problems).toEqual(problems);
    if (verdict !== 'online') expect(got.verdict).toBe(verdict);
  });

  it('skips a marked block, still checking its scripts', () => {
    expect(classify(command('npx wrangler deploy', true), repo)).toEqual({ verdict: 'online', problems: [] });
    expect(classify(command('npm run nope && npx wrangler deploy', true), repo).problems).toEqual(['npm run nope: package.json has no script "nope"']);
  });
});

describe('npm run docs:check', () => {
  it('runs what can run offline and names file, line and command of every failure', () => {
    const dir = scratchDir('check-docs-test');
    const doc = join(dir, 'sample.md');
    writeFileSync(
      doc,
      [
        'A [missing page](missing.md) and `src/nowhere.ts`.', //                                         1
        '```sh', //                                                                                       2
        "curl -s -H 'Authorization: ApiKey demo-project-key' http://localhost:8787/v2/species/ABBA", //    3
        "curl -s -H 'Authorization: ApiKey demo-project-key' http://localhost:8787/v2/species/NO-SUCH-SPECIES", //    4
        'echo "$NOT_SET_BY_THE_DOCS"', //                                                                 5
        'npm run ops:credentials -- create project acme --file credentials.json', //                          6
        'npm run --silent ops:credentials -- list --file credentials.json | grep -q acme', //                 7
        'npm run ops:credentials -- list --file elsewhere.json', //                                           8
        'npm run no-such-script', //                                                                      9
        'npm run --silent ops:credentials -- list --file elsewhere.json | cat', //                            10
        '```', //                                                                                         11
        '```sh online', //                                                                                12
        'npx wrangler deploy', //                                                                         13
        '```', //                                                                                         14
        '```sh', //                                                                                       15
        'PUBLIC_HOSTS=api.example.com npm start', //                                                      16
        "curl -s -H 'Host: evil.example' http://localhost:8787/v2/species", //                           17
        '# HTTP/1.1 421 Misdirected Request', //                                                          18
        "curl -s -H 'Host: api.example.com' http://localhost:8787/v2/species", //                        19
        '# HTTP/1.1 421 Misdirected Request', //                                                          20
        '```', //                                                                                         21
        '```sh', //                                                                                       22
        "curl -s -H 'Host: evil.example' http://localhost:8787/v2/species", //                           23
        '```', //                                                                                         24
      ].join('\n'),
    );
    const out = spawnSync('npm', ['run', '--silent', 'docs:check', '--', doc], { cwd: ROOT, encoding: 'utf8' });
    const lines = out.stdout.trim().split('\n');
    const at = (line: number) => lines.filter((l) => l.startsWith(`${doc}:${line}: `)).join('\n');
    expect(out.status, out.stdout + out.stderr).toBe(1);
    expect(at(1)).toMatch(/FAIL +missing\.md +-- linked path does not exist/);
    expect(at(1)).toMatch(/FAIL +src\/nowhere\.ts +-- mentioned path does not exist/);
    expect(at(3)).toMatch(/ ok +curl .* -- \(HTTP 200\)$/);
    expect(at(4)).toMatch(/ FAIL +curl .*NO-SUCH-SPECIES +-- HTTP 404$/);
    expect(at(5)).toMatch(/ FAIL +echo "\$NOT_SET_BY_THE_DOCS" +-- stopped the shell: .*NOT_SET_BY_THE_DOCS: unbound variable/);
    // The commands after a stopped shell still run, in the same scratch directory.
    expect(at(6)).toMatch(/ ok +npm run ops:credentials -- create project acme/);
    expect(at(7)).toMatch(/ ok +npm run --silent ops:credentials -- list/);
    expect(at(8)).toMatch(/ FAIL +npm run ops:credentials -- list --file elsewhere\.json +-- exit 2: .*elsewhere\.json: no such credential file/);
    expect(at(9)).toMatch(/ FAIL +npm run no-such-script +-- npm run no-such-script: package.json has no script/);
    expect(at(10), 'a failure inside a pipeline counts').toMatch(/ FAIL +npm run --silent ops:credentials .* \| cat +-- exit 2: /);
    expect(at(13)).toMatch(/ skip \(online\) +npx wrangler deploy$/);
    // A block that starts a gateway with settings talks to that gateway; the announced status is the one expected.
    expect(at(16)).toMatch(/ ok +PUBLIC_HOSTS=api\.example\.com npm start +-- \(a gateway with these settings, on port \d+\)$/);
    expect(at(17)).toMatch(/ ok +curl .*evil\.example.* -- \(HTTP 421\)$/);
    expect(at(19)).toMatch(/ FAIL +curl .*api\.example\.com.* -- HTTP 401, not the 421 its comment announces$/);
    // The next block is back on the demo gateway, which answers any host.
    expect(at(23)).toMatch(/ FAIL +curl .*evil\.example.* -- HTTP 401$/);
    expect(lines.at(-1)).toBe('docs:check: 5 ran, 0 checked without running, 1 skipped (online), 9 failed');
  });
});
