import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GUIDE_FILE, migrationGuide } from '../../scripts/migration-guide';
import { EXAMPLES_FILE, planExamples } from '../../scripts/report/plan-examples';
import { v1 } from '../../src/versions/v1/index';
import { parseConfig } from '../../src/config';
import { dataset } from '../support/harness';

describe('docs/migrating-to-v2.md', () => {
  it('is exactly what the v1 change modules generate (run `npm run docs:migration` after changing one)', async () => {
    const generated = await migrationGuide(dataset);
    expect(readFileSync(GUIDE_FILE, 'utf8')).toBe(generated);
  });

  it("sits beside the clients' plan examples, exactly as generated from the same changes and data", async () => {
    expect(JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8'))).toEqual(await planExamples(dataset));
  });

  it('has one section per v1 change, in order, each with a v1 and a v2 example', async () => {
    const guide = await migrationGuide(dataset);
    const sections = guide.split(/^## /m).slice(1);
    const changes = v1(parseConfig({})).changes;
    expect(sections.map((s) => s.slice(0, s.indexOf('\n')))).toEqual(changes.map((c, i) => `${i + 1}. \`${c.name}\``));
    sections.forEach((section, i) => {
      expect(section, changes[i]!.name).toContain(changes[i]!.description);
      expect(section, changes[i]!.name).toMatch(/\nv1:\n\n```[a-z]+\n[^`]+```\n\nv2:\n\n```[a-z]+\n[^`]+```/);
    });
  });
});
