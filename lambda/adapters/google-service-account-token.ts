/**
 * An OAuth 2.0 access token for a Google service account by the JWT bearer grant (RFC 7523), signed
 * with `jose`: an RS256 assertion `{iss: client_email, scope, aud: token endpoint, iat, exp}` POSTed to
 * Google's token endpoint. The token is kept until five minutes before it expires. The endpoint is
 * ours to choose (Google's by default; a local stand-in in tests), never the key file's `token_uri`.
 */
import { SignJWT, importPKCS8 } from 'jose';
import type { GcpServiceAccountKey } from '../core/acquisition/gcp-secret';

export const GOOGLE_TOKEN_ENDPOINT = 'https://oauth2.googleapis.com/token';
export const BIGQUERY_SCOPE = 'https://www.googleapis.com/auth/bigquery';

export const serviceAccountToken = (
  key: GcpServiceAccountKey,
  options: {
    tokenEndpoint?: string;
    fetch?: typeof fetch;
    now?: () => number;
    scope?: string;
  } = {},
): (() => Promise<string>) => {
  const endpoint = options.tokenEndpoint ?? GOOGLE_TOKEN_ENDPOINT;
  const now = options.now ?? Date.now;
  let cached: { token: string; expiresAtMs: number } | undefined;
  return async () => {
    if (cached && cached.expiresAtMs - 300_000 > now()) return cached.token;
    const signingKey = await importPKCS8(key.privateKey, 'RS256');
    const issuedAt = Math.floor(now() / 1000);
    const assertion = await new SignJWT({ scope: options.scope ?? BIGQUERY_SCOPE })
      .setProtectedHeader({
        alg: 'RS256',
        typ: 'JWT',
        ...(key.privateKeyId ? { kid: key.privateKeyId } : {}),
      })
      .setIssuer(key.clientEmail)
      .setAudience(endpoint)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 3600)
      .sign(signingKey);
    const response = await (options.fetch ?? fetch)(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion,
      }).toString(),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(
        `Google refused the service account ${key.clientEmail} (${response.status}): ${text.slice(0, 200)}`,
      );
    const body = JSON.parse(text) as { access_token?: string; expires_in?: number };
    if (typeof body.access_token !== 'string')
      throw new Error('the token answer has no access_token');
    cached = { token: body.access_token, expiresAtMs: now() + (body.expires_in ?? 3600) * 1000 };
    return cached.token;
  };
};
