/**
 * The path and query a log line holds (src/core/redact.ts, docs/reference/requests.md): the value of
 * every parameter named like a credential replaced, in any letter case and however its name is
 * escaped, everything else as the caller wrote it. `plain-query.test.ts` checks the same rules on
 * random queries; `access-log.test.ts` through the gateway.
 */
import { describe, expect, it } from 'vitest';
import { redactedTarget } from '../../../src/core/redact';

describe('redactedTarget', () => {
  it.each([
    ['https://h.example/v2/species', '/v2/species'],
    ['https://h.example/v2/species?page=2&q=abies', '/v2/species?page=2&q=abies'],
    ['https://h.example/v2/species?', '/v2/species'],
    ['https://h.example/v2/species?&&', '/v2/species'],
    ['https://h.example/v2/species?q=a%20b&&page=2#top', '/v2/species?q=a%20b&page=2'],
    ['https://h.example/v1/species?key=s3cret&q=abies', '/v1/species?key=[redacted]&q=abies'],
    ['https://h.example/v1/species?q=abies&TOKEN=s3cret', '/v1/species?q=abies&TOKEN=[redacted]'],
    ['https://h.example/v1/species?%6Bey=s3cret&q=a+b', '/v1/species?%6Bey=[redacted]&q=a+b'],
    ['https://h.example/v1/species?api%5Fkey=s3=cr=et', '/v1/species?api%5Fkey=[redacted]'],
    ['https://h.example/v1/species?x-api-key', '/v1/species?x-api-key=[redacted]'],
    ['https://h.example/v1/species?keys=kept&key=s3cret&monkey=kept', '/v1/species?keys=kept&key=[redacted]&monkey=kept'],
    [
      'https://h.example/v1/species?password=a&Authorization=b&client_secret=c',
      '/v1/species?password=[redacted]&Authorization=[redacted]&client_secret=[redacted]',
    ],
  ])('%s -> %s', (url, target) => {
    expect(redactedTarget(url)).toBe(target);
  });
});
