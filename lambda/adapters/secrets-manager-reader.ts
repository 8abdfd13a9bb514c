/**
 * `SecretReader` on AWS Secrets Manager: the secret's current `SecretString`, fetched on every call
 * (no cache), so a rotated secret is what the next run reads.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretReader } from './azure-credentials';

export const secretsManagerReader =
  (client: SecretsManagerClient): SecretReader =>
  async (secretArn) => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    if (SecretString === undefined)
      throw new Error(
        `${secretArn}: the secret has no text value (a binary secret?); store the JSON as SecretString`,
      );
    return SecretString;
  };
