/** The tenant of an export comes from where it is delivered, never from its content. */
import { declaredPrecedence, exportSource, sourceOfKey } from '../../../lambda/core/exports/source';

const sources = [
  exportSource({ tenant: 'ACME', bucket: 'exports', prefix: 'billing/acme' }),
  exportSource({ tenant: 'acme-eu', bucket: 'exports', prefix: 'billing/acme/eu' }),
  exportSource({ tenant: 'globex', bucket: 'other-bucket', prefix: '' }),
];

describe('sourceOfKey', () => {
  it('binds a key to the source with the longest prefix that contains it', () => {
    expect(sourceOfKey(sources, 'exports', 'billing/acme/focus/metadata/x')?.tenant).toBe('acme');
    expect(sourceOfKey(sources, 'exports', 'billing/acme/eu/focus/metadata/x')?.tenant).toBe(
      'acme-eu',
    );
    expect(sourceOfKey(sources, 'other-bucket', 'anything/at/all')?.tenant).toBe('globex');
  });

  it('matches whole path segments and the bucket', () => {
    expect(sourceOfKey(sources, 'exports', 'billing/acme-corp/focus/metadata/x')).toBeUndefined();
    expect(sourceOfKey(sources, 'elsewhere', 'billing/acme/focus/metadata/x')).toBeUndefined();
  });
});

describe('exportSource', () => {
  it('normalizes the tenant and refuses what cannot be a tenant or a prefix', () => {
    expect(sources[0].tenant).toBe('acme');
    expect(() => exportSource({ tenant: 'Acme Corp', bucket: 'b', prefix: 'x' })).toThrow(/tenant/);
    expect(() => exportSource({ tenant: 'acme', bucket: 'b', prefix: 'x/' })).toThrow(/prefix/);
    expect(() => exportSource({ tenant: 'acme', bucket: ' ', prefix: 'x' })).toThrow(/bucket/);
  });
});

describe('declaredPrecedence', () => {
  const acme = exportSource({
    tenant: 'acme',
    bucket: 'exports',
    prefix: 'billing/acme',
    precedence: ['focus-main', 'team/legacy#cur'],
  });

  it('is the position of the export name under the prefix, as a source id', () => {
    expect(declaredPrecedence(acme, 'exports/billing/acme/focus-main')).toBe(0);
    expect(declaredPrecedence(acme, 'exports/billing/acme/team/legacy%23cur')).toBe(1);
  });

  it('is undefined for an export the list does not name, or one of another bucket or prefix', () => {
    expect(declaredPrecedence(acme, 'exports/billing/acme/other')).toBeUndefined();
    expect(declaredPrecedence(acme, 'elsewhere/billing/acme/focus-main')).toBeUndefined();
    expect(
      declaredPrecedence({ ...acme, precedence: undefined }, 'exports/billing/acme/focus-main'),
    ).toBeUndefined();
    expect(
      declaredPrecedence({ ...acme, prefix: '', precedence: ['focus-main'] }, 'exports/focus-main'),
    ).toBe(0);
  });
});
