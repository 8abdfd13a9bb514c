import {
  apiKeyId,
  apiKeyState,
  isLiveBinding,
  newApiKeyText,
  rotationExpiries,
  type ApiKeyRecord,
} from '../../../lambda/core/ingest/api-key-lifecycle';
import { apiKeyHash, presentedApiKey } from '../../../lambda/core/ingest/api-key';

const NOW = new Date('2026-12-01T10:00:00Z');
const record = (keyId: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  keyId,
  tenant: 'acme',
  source: 'metering',
  createdAt: '2026-11-01T00:00:00.000Z',
  ...extra,
});

describe('API key lifecycle', () => {
  it('a new key is bd_ + 192 random bits, presentable as x-api-key; its id is a prefix of its hash', () => {
    const key = newApiKeyText(new Uint8Array(24).fill(7));
    expect(key).toMatch(/^bd_[A-Za-z0-9_-]{32}$/);
    expect(presentedApiKey({ 'x-api-key': key })).toBe(key);
    expect(apiKeyId(apiKeyHash(key))).toBe(apiKeyHash(key).slice(0, 12));
    expect(() => newApiKeyText(new Uint8Array(8))).toThrow('24 random bytes');
  });

  it('a binding is live until its expiry, not at it', () => {
    const binding = { tenant: 'acme', source: 'metering', expiresAt: '2026-12-01T10:00:00.000Z' };
    expect(isLiveBinding({ tenant: 'acme', source: 'metering' }, NOW)).toBe(true);
    expect(isLiveBinding(binding, new Date('2026-12-01T09:59:59.999Z'))).toBe(true);
    expect(isLiveBinding(binding, NOW)).toBe(false);
  });

  it('states: active, expiring, expired, revoked', () => {
    expect(apiKeyState(record('a'), NOW)).toBe('active');
    expect(apiKeyState(record('b', { expiresAt: '2026-12-02T00:00:00Z' }), NOW)).toBe('expiring');
    expect(apiKeyState(record('c', { expiresAt: '2026-11-30T00:00:00Z' }), NOW)).toBe('expired');
    expect(apiKeyState(record('d', { revokedAt: '2026-11-30T00:00:00Z' }), NOW)).toBe('revoked');
  });

  it('a rotation ends only the active keys of its source, after the grace period', () => {
    const records = [
      record('a'),
      record('b', { expiresAt: '2026-12-02T00:00:00Z' }),
      record('c', { revokedAt: '2026-11-30T00:00:00Z' }),
      record('d', { source: 'billing-watcher' }),
      record('e'),
    ];
    expect(rotationExpiries(records, 'metering', NOW, 3600)).toEqual([
      { keyId: 'a', expiresAt: '2026-12-01T11:00:00.000Z' },
      { keyId: 'e', expiresAt: '2026-12-01T11:00:00.000Z' },
    ]);
    expect(() => rotationExpiries(records, 'metering', NOW, -1)).toThrow('grace period');
  });
});
