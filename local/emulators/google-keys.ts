/**
 * A local stand-in for Google's OIDC signing keys: a key pair, its public JWK set (what the push
 * endpoint's configurable key source reads — `pushEndpoint.pubsub.jwksUrl`) and Pub/Sub-shaped push
 * tokens signed with it. `serveJwks` serves the set over HTTP on a free loopback port, so the local run
 * verifies through the same `createRemoteJWKSet` the deployed function uses.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

export const JWKS_PATH = '/oauth2/v3/certs';

export interface ServedJwks {
  /** `http://127.0.0.1:<port>/oauth2/v3/certs` */
  readonly url: string;
  /** How many times the key set was read. */
  readonly fetches: () => number;
  stop(): Promise<void>;
}

/** Serves `jwks` at JWKS_PATH on a free loopback port. */
export const serveJwks = async (jwks: { keys: object[] }): Promise<ServedJwks> => {
  let fetches = 0;
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== JWKS_PATH) {
      response.writeHead(404).end();
      return;
    }
    fetches++;
    response
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' })
      .end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${JWKS_PATH}`,
    fetches: () => fetches,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
