/**
 * `pushEndpoint.iamCallers`: the AWS roles that may post to the IAM (SigV4) ingest route, each bound to
 * one tenant and source (docs/push-endpoint.md "AWS callers (IAM)"). API Gateway's IAM authorizer only
 * proves who signed; this binding is what lets a role book for a tenant.
 *
 * A caller signs with a session of the role, whose ARN (`arn:aws:sts::<acct>:assumed-role/<name>/<session>`)
 * carries neither the role's path nor anything else but the account and the name. IAM role names are
 * unique per account whatever their path and compared without case, so a role is identified by its
 * partition, account and lower-cased name (`iamRoleKey`) — exact, not a loosened match.
 */
import { isSlug, slugProblem } from './slugs';

export interface IamCallerBinding {
  /** `arn:<partition>:iam::<account>:role/<path/><name>`: one role, no patterns. */
  readonly principal: string;
  readonly tenant: string;
  readonly source: string;
}

export interface IamRole {
  readonly partition: string;
  readonly account: string;
  readonly name: string;
}

const ROLE_ARN =
  /^arn:(aws|aws-cn|aws-us-gov|aws-iso|aws-iso-b):iam::(\d{12}):role((?:\/[\x21-\x7e]+)?)\/([\w+=,.@-]{1,64})$/;
const ROLE_PATH_MAX = 512;
const FIELDS = ['principal', 'tenant', 'source'];

/** The partition, account and name of an IAM role ARN; undefined when it is not one. */
export const iamRoleOf = (arn: string): IamRole | undefined => {
  const match = /[*?]/.test(arn) ? null : ROLE_ARN.exec(arn);
  if (match === null || match[3].length + 1 > ROLE_PATH_MAX) return undefined;
  return { partition: match[1], account: match[2], name: match[4] };
};

/** What identifies a role to the binding: the assumed-role ARN of a session gives exactly these. */
export const iamRoleKey = (role: IamRole): string =>
  `${role.partition}:${role.account}:${role.name.toLowerCase()}`;

const principalProblem = (arn: unknown): string => {
  const shape = 'must be an IAM role ARN, arn:aws:iam::<account>:role/<name>';
  if (typeof arn !== 'string') return shape;
  const quoted = JSON.stringify(arn);
  if (/[*?]/.test(arn))
    return `${quoted} is a pattern; name one role (arn:aws:iam::<account>:role/<name>): each role binds one tenant, so account-wide or wildcard principals are not allowed`;
  if (/^arn:[\w-]+:sts::\d{12}:assumed-role\/([^/]+)\//.test(arn))
    return `${quoted} is a role session; bind the role itself: ${arn.replace(/^arn:([\w-]+):sts::(\d{12}):assumed-role\/([^/]+)\/.*$/, 'arn:$1:iam::$2:role/$3')}`;
  if (/^\d{12}$/.test(arn) || /^arn:[\w-]+:iam::\d{12}:(root|user\/)/.test(arn))
    return `${quoted} is an account or an IAM user; bind a role the caller assumes (arn:aws:iam::<account>:role/<name>)`;
  return `${quoted} ${shape} (a 12-digit account, a name of at most 64 of A-Z a-z 0-9 +=,.@_-)`;
};

const problem = (field: string, reason: string): Error =>
  new Error(`pushEndpoint.iamCallers${field} ${reason}`);

/** Validates the bindings; errors name the entry and the fix. */
export const parseIamCallers = (value: unknown): IamCallerBinding[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0)
    throw problem(
      '',
      'must be a non-empty list of { principal: <IAM role ARN>, tenant, source } (or be removed)',
    );
  const boundAt = new Map<string, number>();
  return value.map((entry: unknown, index) => {
    const at = `[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw problem(at, 'must be { principal, tenant, source }');
    const record = entry as Record<string, unknown>;
    const unknown = Object.keys(record).find((key) => !FIELDS.includes(key));
    if (unknown !== undefined)
      throw problem(`${at}.${unknown}`, `is not a known field (known: ${FIELDS.join(', ')})`);
    const { principal, tenant, source } = record;
    const role = typeof principal === 'string' ? iamRoleOf(principal) : undefined;
    if (role === undefined) throw problem(`${at}.principal`, principalProblem(principal));
    if (!isSlug(tenant)) throw problem(`${at}.tenant`, slugProblem('tenant', tenant));
    if (!isSlug(source)) throw problem(`${at}.source`, slugProblem('source', source));
    const key = iamRoleKey(role);
    const earlier = boundAt.get(key);
    if (earlier !== undefined)
      throw problem(
        `${at}.principal`,
        `binds role "${role.name}" of account ${role.account} again (iamCallers[${earlier}]); a role is ` +
          'matched by account and name (not path or case) and binds one tenant and source: keep one entry',
      );
    boundAt.set(key, index);
    return { principal: principal as string, tenant, source };
  });
};
