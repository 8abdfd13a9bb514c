/**
 * A tenant's secret in AWS Secrets Manager, for every acquisition: `SecretReader` (the secret's
 * current `SecretString`, fetched on every call, no cache, so a rotated secret is what the next run
 * reads) and `readTenantSecret`, the one place a secret's text is read and handed to its parser.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** Reads a secret's current value (Secrets Manager `GetSecretValue`'s `SecretString`). */
export type SecretReader = (secretArn: string) => Promise<string>;

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

/** The secret's current value, parsed by the provider's parser (which names the ARN in its errors). */
export const readTenantSecret = async <T>(
  readSecret: SecretReader,
  secretArn: string,
  parse: (text: string, secretArn: string) => T,
): Promise<T> => parse(await readSecret(secretArn), secretArn);
