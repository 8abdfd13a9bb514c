/**
 * Azure credentials of a tenant from its secret in AWS Secrets Manager, read at each run (a rotated
 * secret is used by the next run, no redeploy): a `ClientSecretCredential` of `@azure/identity`, and
 * the bearer-token function the Query API client takes.
 */
import { ClientSecretCredential, type TokenCredential } from '@azure/identity';
import { parseAzureClientSecret } from '../core/acquisition/azure-secret';
import { readTenantSecret, type SecretReader } from './secrets-manager-reader';

export const AZURE_MANAGEMENT_SCOPE = 'https://management.azure.com/.default';

export interface AzureCredentialOptions {
  /** Microsoft Entra endpoint (tests point it at a stand-in). */
  authorityHost?: string;
}

/** The tenant's credential for this run, from the secret's current value. */
export const azureCredentialFor = async (
  readSecret: SecretReader,
  secretArn: string,
  options: AzureCredentialOptions = {},
): Promise<TokenCredential> => {
  const secret = await readTenantSecret(readSecret, secretArn, parseAzureClientSecret);
  return new ClientSecretCredential(secret.tenantId, secret.clientId, secret.clientSecret, {
    ...(options.authorityHost === undefined ? {} : { authorityHost: options.authorityHost }),
  });
};

/** A bearer token for Azure Resource Manager (the Query API). */
export const managementToken = (credential: TokenCredential) => async (): Promise<string> => {
  const token = await credential.getToken(AZURE_MANAGEMENT_SCOPE);
  if (!token) throw new Error('Microsoft Entra ID returned no token for Azure Resource Manager');
  return token.token;
};
