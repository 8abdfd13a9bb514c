/** One slug rule: what the configuration accepts for a tenant or source is what the ledger books. */
import fc from 'fast-check';
import { parseExportSources } from '../../../contract/export-sources';
import { SLUG_RULE, isSlug } from '../../../contract/slugs';
import { parseTenants } from '../../../contract/tenant-bindings';
import { normalizeExportRow } from '../../../lambda/core/exports/rows';
import { exportSettings } from '../../../lambda/adapters/export-settings';
import { ENV } from '../../../contract/environment';

const anyPrincipal = (): undefined => undefined;

/** A FOCUS row without ProviderName: its source is the export source's `source`. */
const rowWithoutProvider = {
  BilledCost: '1.25',
  BillingAccountId: '100000000001',
  BillingCurrency: 'USD',
  ChargeCategory: 'Usage',
  BillingPeriodStart: '2026-11-01 00:00:00',
  ChargePeriodStart: '2026-11-03 14:00:00',
  ChargePeriodEnd: '2026-11-03 15:00:00',
};

const configAccepts = (slug: string): boolean => {
  try {
    parseExportSources([{ tenant: slug, prefix: 'exports/x/', source: slug }]);
    return true;
  } catch {
    return false;
  }
};

const tenantsAccept = (slug: string): boolean => {
  try {
    parseTenants([{ id: slug, publishers: ['123456789012'], sources: [slug] }], anyPrincipal);
    return true;
  } catch {
    return false;
  }
};

/** The ledger books a row under this tenant and source, both kept as given. */
const ledgerBooks = (slug: string): boolean => {
  const result = normalizeExportRow(
    { rowIndex: 0, cells: rowWithoutProvider },
    { tenant: slug, source: slug, objectKey: 'exports/x/a.csv', billingPeriod: '2026-11' },
  );
  return result.ok && result.charge.tenant === slug && result.charge.event.source === slug;
};

const candidates = [
  'acme',
  'my-cloud',
  'a',
  '0',
  'x'.repeat(64),
  'x'.repeat(65),
  'my_cloud',
  'acme.corp',
  'Acme',
  '-acme',
  'acme-',
  'ac#me',
  '',
];

describe('tenant and source slugs', () => {
  it.each(candidates)('%j: config accepts it exactly when the ledger books it', (slug) => {
    const booked = ledgerBooks(slug);
    expect(configAccepts(slug)).toBe(booked);
    expect(tenantsAccept(slug)).toBe(booked);
    expect(isSlug(slug)).toBe(booked);
  });

  it('agrees for any short text over a wide alphabet', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Z0-9._#=\- ]{0,8}$/),
        (slug) => configAccepts(slug) === ledgerBooks(slug),
      ),
      { numRuns: 500 },
    );
  });

  it('refuses my_cloud and acme.corp in exportSources with the rule in the message', () => {
    expect(() =>
      parseExportSources([{ tenant: 'acme', prefix: 'a/', source: 'my_cloud' }]),
    ).toThrow(
      `exportSources[0].source "my_cloud" must be a source slug as the ledger keeps it: ${SLUG_RULE}`,
    );
    expect(() =>
      parseExportSources([
        { tenant: 'globex', prefix: 'g/' },
        { tenant: 'acme.corp', prefix: 'a/' },
      ]),
    ).toThrow(
      `exportSources[1].tenant "acme.corp" must be a tenant slug as the ledger keeps it: ${SLUG_RULE}`,
    );
  });

  it('the export functions read back only what synth let through', () => {
    const env = (sources: unknown) => ({
      [ENV.exportBucketName]: 'b',
      [ENV.ledgerTableName]: 't',
      [ENV.exportSources]: JSON.stringify(sources),
    });
    expect(
      exportSettings(env([{ tenant: 'acme', prefix: 'a/', source: 'my-cloud' }])).sources,
    ).toEqual([{ tenant: 'acme', bucket: 'b', prefix: 'a', source: 'my-cloud' }]);
    expect(() => exportSettings(env([{ tenant: 'acme.corp', prefix: 'a/' }]))).toThrow(
      `Environment variable ${ENV.exportSources}: exportSources[0].tenant "acme.corp" must be a tenant slug`,
    );
  });
});
