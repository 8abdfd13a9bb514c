/** The tenant of an export comes from where it is delivered, never from its content. */
import { exportSource, sourceOfKey } from '../../../lambda/core/exports/source';

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
