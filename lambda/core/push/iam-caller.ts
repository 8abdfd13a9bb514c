/**
 * Who may post to the IAM ingest route (`/v1/iam/events`). API Gateway's IAM authorizer has already
 * checked the SigV4 signature and that the caller's own account lets it invoke the route; it hands the
 * signer's identity as `requestContext.authorizer.iam`. That proves who signed, not for whom: the
 * binding (`pushEndpoint.iamCallers`) is the authorization. A signed request from a role nobody bound is
 * 403 `unknown-caller`, and the tenant and source are the binding's, never the body's.
 *
 * The signer is a session of a role: `arn:aws:sts::<acct>:assumed-role/<RoleName>/<session>`, matched to
 * `arn:aws:iam::<acct>:role/<path/><RoleName>` by partition, account and name (contract/iam-callers.ts:
 * names are unique per account, so the path the session ARN omits is not needed). IAM users, account
 * roots and federated users are never bound: they are refused like an unbound role.
 */
import {
  iamRoleKey,
  iamRoleOf,
  type IamCallerBinding,
  type IamRole,
} from '../../../contract/iam-callers';
import type { IngestCaller } from '../ingest/ingest';
import { refuse, type Refusal } from './refusal';

/** `requestContext.authorizer.iam` of an HTTP API route with IAM authorization (the fields we read). */
export interface IamCallerIdentity {
  readonly userArn?: string;
  readonly accountId?: string;
  readonly callerId?: string;
}

export type IamCallerBindings = ReadonlyMap<string, IamCallerBinding>;

export const iamCallerBindings = (callers: readonly IamCallerBinding[]): IamCallerBindings =>
  new Map(callers.map((caller) => [iamRoleKey(iamRoleOf(caller.principal) as IamRole), caller]));

const ASSUMED_ROLE = /^arn:([\w-]+):sts::(\d{12}):assumed-role\/([\w+=,.@-]{1,64})\/[^/]+$/;

/** The role a signer's ARN is a session of (or the role itself); undefined for anything else. */
export const signingRoleOf = (userArn: string): IamRole | undefined => {
  const session = ASSUMED_ROLE.exec(userArn);
  return session
    ? { partition: session[1], account: session[2], name: session[3] }
    : iamRoleOf(userArn);
};

export interface VerifiedIamCaller extends IngestCaller {
  readonly ok: true;
  /** The bound role's ARN as configured, for the logs. */
  readonly principal: string;
}

export const verifyIamCaller = (
  identity: IamCallerIdentity | undefined,
  bindings: IamCallerBindings,
): VerifiedIamCaller | Refusal => {
  const userArn = identity?.userArn;
  if (userArn === undefined || userArn === '')
    return refuse(401, 'missing-credential', 'no IAM identity: sign the request with SigV4');
  const role = signingRoleOf(userArn);
  if (role === undefined)
    return refuse(
      403,
      'unknown-caller',
      `${userArn} is not a role session; sign with credentials of a role bound in pushEndpoint.iamCallers`,
    );
  if (identity?.accountId !== undefined && identity.accountId !== role.account)
    return refuse(
      401,
      'malformed-credential',
      `${userArn} does not belong to account ${identity.accountId}`,
    );
  const binding = bindings.get(iamRoleKey(role));
  if (binding === undefined)
    return refuse(
      403,
      'unknown-caller',
      `role ${role.name} of account ${role.account} is not bound to a tenant (pushEndpoint.iamCallers)`,
    );
  return { ok: true, tenant: binding.tenant, source: binding.source, principal: binding.principal };
};
