/**
 * A local stand-in for Google's OIDC signing keys: a key pair, its public JWK set (what the verifier's
 * configurable key source serves) and Pub/Sub-shaped push tokens signed with it.
 */
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, type JWTVerifyGetKey } from 'jose';

export interface LocalGoogleKeys {
  readonly jwks: { keys: object[] };
  readonly resolver: JWTVerifyGetKey;
  sign(claims: Record<string, unknown>, options?: TokenOptions): Promise<string>;
}

export interface TokenOptions {
  readonly issuedAt?: Date;
  readonly lifetimeSeconds?: number;
  readonly keyId?: string;
}

export const localGoogleKeys = async (keyId = 'local-1'): Promise<LocalGoogleKeys> => {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: keyId, alg: 'RS256', use: 'sig' };
  const jwks = { keys: [jwk] };
  return {
    jwks,
    resolver: createLocalJWKSet(jwks),
    sign: async (claims, options = {}) => {
      const issuedAt = Math.floor((options.issuedAt ?? new Date()).getTime() / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.keyId ?? keyId, typ: 'JWT' })
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + (options.lifetimeSeconds ?? 3600))
        .sign(privateKey);
    },
  };
};

/** The claims Google puts in a Pub/Sub push token for `email`, sent to `audience`. */
export const pushClaims = (audience: string, email: string): Record<string, unknown> => ({
  iss: 'https://accounts.google.com',
  aud: audience,
  azp: '100000000000000000001',
  sub: '100000000000000000001',
  email,
  email_verified: true,
});
