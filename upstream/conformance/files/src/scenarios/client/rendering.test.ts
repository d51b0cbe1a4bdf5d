import { describe, test, expect } from 'vitest';
import {
  InlineClientRunner,
  runClientAgainstScenario
} from './auth/test_helpers/testClient';
import { getHandler } from '../../../examples/clients/typescript/everything-client';
import {
  runClient as brokenClient,
  runClientReportingNothingIgnored
} from '../../../examples/clients/typescript/rendering-broken-client';
import { DRAFT_PROTOCOL_VERSION, LATEST_SPEC_VERSION } from '../../types';

describe('rendering-client', () => {
  for (const specVersion of [
    LATEST_SPEC_VERSION,
    DRAFT_PROTOCOL_VERSION
  ] as const)
    test(`the everything-client passes every check under ${specVersion}`, async () => {
      const checks = await runClientAgainstScenario(
        new InlineClientRunner(getHandler('rendering-client')!),
        'rendering-client',
        { specVersion }
      );
      expect(checks.length).toBe(
        specVersion === DRAFT_PROTOCOL_VERSION ? 6 : 5
      );
    });

  test('a client that misreads fails every check', async () => {
    const checks = await runClientAgainstScenario(
      new InlineClientRunner(brokenClient),
      'rendering-client',
      {
        specVersion: DRAFT_PROTOCOL_VERSION,
        expectedFailureSlugs: ['sep-0000-rendering-client-declares']
      }
    );
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['sep-0000-rendering-client-malformed-never-fatal', 'FAILURE'],
      ['sep-0000-rendering-client-effective-mode', 'FAILURE'],
      ['sep-0000-rendering-client-reads-tables', 'FAILURE'],
      ['sep-0000-rendering-client-unknown-member-ignored', 'FAILURE'],
      ['sep-0000-rendering-client-not-stated-is-partial', 'FAILURE'],
      ['sep-0000-rendering-client-declares', 'WARNING']
    ]);
  });

  test('a client that reads right but reports no ignored member gets a warning', async () => {
    const checks = await runClientAgainstScenario(
      new InlineClientRunner(runClientReportingNothingIgnored),
      'rendering-client',
      {
        specVersion: DRAFT_PROTOCOL_VERSION,
        expectedFailureSlugs: [
          'sep-0000-rendering-client-unknown-member-ignored'
        ]
      }
    );
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['sep-0000-rendering-client-malformed-never-fatal', 'SUCCESS'],
      ['sep-0000-rendering-client-effective-mode', 'SUCCESS'],
      ['sep-0000-rendering-client-reads-tables', 'SUCCESS'],
      ['sep-0000-rendering-client-unknown-member-ignored', 'WARNING'],
      ['sep-0000-rendering-client-not-stated-is-partial', 'SUCCESS'],
      ['sep-0000-rendering-client-declares', 'WARNING']
    ]);
  });
});
