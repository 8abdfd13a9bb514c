/**
 * Credentials of a role in another account (the payer's), from STS `AssumeRole` with the ExternalId its
 * trust policy requires, for the clients that ask the provider for its totals. One AssumeRole per run in
 * practice: the credentials are kept until five minutes before they expire (a run lasts at most 15).
 */
import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

const REFRESH_BEFORE_MS = 5 * 60_000;
/** An hour: the default maximum session of a role, and four times a run's longest. */
const SESSION_SECONDS = 3600;

export interface AssumedRoleOptions {
  sts: STSClient;
  roleArn: string;
  externalId: string;
  /** Shown in the payer account's CloudTrail as the session name. */
  sessionName: string;
  now?: () => number;
}

export const assumedRoleCredentials = (
  options: AssumedRoleOptions,
): AwsCredentialIdentityProvider => {
  const now = options.now ?? Date.now;
  let held: AwsCredentialIdentity | undefined;
  return async () => {
    if (held?.expiration && held.expiration.getTime() - REFRESH_BEFORE_MS > now()) return held;
    const { Credentials: credentials } = await options.sts.send(
      new AssumeRoleCommand({
        RoleArn: options.roleArn,
        ExternalId: options.externalId,
        RoleSessionName: options.sessionName,
        DurationSeconds: SESSION_SECONDS,
      }),
    );
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.SessionToken)
      throw new Error(`AssumeRole of ${options.roleArn} returned no credentials`);
    held = {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      sessionToken: credentials.SessionToken,
      ...(credentials.Expiration ? { expiration: credentials.Expiration } : {}),
    };
    return held;
  };
};
