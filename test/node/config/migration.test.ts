import { describe, expect, it } from 'vitest';
import { describeConfig, parseConfig } from '../../../src/config';
import { parseIntervals } from '../../../src/core/intervals';

const H = 3_600_000;

describe('migration settings (docs/reference/migration.md)', () => {
  it('defaults: the facade answers, nothing compared, no brownouts', () => {
    expect(parseConfig({}).migration).toEqual({
      legacyUrl: undefined,
      legacyAuthorization: undefined,
      answer: 'facade',
      comparePercent: 0,
      compareIgnore: [],
      brownouts: [],
    });
  });

  it('reads every variable', () => {
    const m = parseConfig({
      LEGACY_V1_URL: 'https://legacy.internal/api/v1/',
      LEGACY_V1_AUTHORIZATION: 'Bearer s3cret',
      V1_ANSWER: 'legacy',
      V1_COMPARE_PERCENT: '12.5',
      V1_COMPARE_IGNORE: 'meta.last_modified, data[].synonyms',
      V1_BROWNOUTS: '2027-05-04T14:00:00Z/PT1H,2027-06-01T00:00:00+02:00/2027-06-01T06:00:00+02:00',
    }).migration;
    expect(m).toEqual({
      legacyUrl: 'https://legacy.internal/api/v1',
      legacyAuthorization: 'Bearer s3cret',
      answer: 'legacy',
      comparePercent: 12.5,
      compareIgnore: ['meta.last_modified', 'data[].synonyms'],
      brownouts: [
        { start: Date.parse('2027-05-04T14:00:00Z'), end: Date.parse('2027-05-04T15:00:00Z') },
        { start: Date.parse('2027-05-31T22:00:00Z'), end: Date.parse('2027-06-01T04:00:00Z') },
      ],
    });
  });

  it('never prints LEGACY_V1_AUTHORIZATION', () => {
    const shown = JSON.stringify(describeConfig(parseConfig({ LEGACY_V1_URL: 'https://legacy.internal/api/v1', LEGACY_V1_AUTHORIZATION: 'Bearer s3cret' })));
    expect(shown).not.toContain('s3cret');
    expect(shown).toContain('"legacyAuthorization":"[set]"');
  });

  it.each([
    [{ V1_ANSWER: 'legacy' }, /LEGACY_V1_URL .*V1_ANSWER=legacy/],
    [{ V1_COMPARE_PERCENT: '5' }, /LEGACY_V1_URL .*V1_COMPARE_PERCENT=5/],
    [{ V1_ANSWER: 'legacy', V1_COMPARE_PERCENT: '100' }, /LEGACY_V1_URL .*V1_ANSWER=legacy and V1_COMPARE_PERCENT=100/],
    [{ V1_ANSWER: 'both' }, /V1_ANSWER /],
    [{ V1_COMPARE_PERCENT: '101' }, /V1_COMPARE_PERCENT /],
    [{ V1_COMPARE_PERCENT: 'half' }, /V1_COMPARE_PERCENT /],
    [{ V1_COMPARE_PERCENT: '-1' }, /V1_COMPARE_PERCENT /],
    [{ V1_COMPARE_IGNORE: 'meta..total' }, /V1_COMPARE_IGNORE /],
    [{ LEGACY_V1_URL: 'ftp://legacy.internal/v1' }, /LEGACY_V1_URL /],
    [{ LEGACY_V1_URL: 'https://user:pw@legacy.internal/v1' }, /LEGACY_V1_URL must not carry credentials/],
    [{ LEGACY_V1_URL: 'https://legacy.internal/v1?x=1' }, /LEGACY_V1_URL /],
    [{ V1_BROWNOUTS: '2027-05-04T14:00:00Z' }, /V1_BROWNOUTS /],
    [{ V1_BROWNOUTS: '2027-05-04T14:00:00/PT1H' }, /V1_BROWNOUTS /],
    [{ V1_BROWNOUTS: '2027-02-30T14:00:00Z/PT1H' }, /V1_BROWNOUTS /],
    [{ V1_BROWNOUTS: '2027-05-04T14:00:00Z/P1M' }, /V1_BROWNOUTS /],
    [{ V1_BROWNOUTS: '2027-05-04T14:00:00Z/2027-05-04T13:00:00Z' }, /V1_BROWNOUTS .*ends before it starts/],
    [{ V1_BROWNOUTS: 'PT1H/PT2H' }, /V1_BROWNOUTS /],
  ])('stops start-up on %j naming the variable', (vars, message) => {
    expect(() => parseConfig(vars)).toThrow(message);
  });

  it('reads the three interval forms of ISO 8601', () => {
    const start = Date.parse('2027-05-04T14:00:00Z');
    expect(parseIntervals('2027-05-04T14:00:00Z/2027-05-04T15:30:00Z')).toEqual([{ start, end: start + 1.5 * H }]);
    expect(parseIntervals('2027-05-04T14:00:00Z/P1DT2H30M')).toEqual([{ start, end: start + 26.5 * H }]);
    expect(parseIntervals('PT30M/2027-05-04T14:00:00Z')).toEqual([{ start: start - 0.5 * H, end: start }]);
    expect(parseIntervals('2027-05-04T14:00:00Z/P1W')).toEqual([{ start, end: start + 7 * 24 * H }]);
  });
});
