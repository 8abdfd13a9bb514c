import { Aspects, Stack } from 'aws-cdk-lib';
import { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Synthesized, synth } from './helpers';

/** cdk-nag findings (errors and warnings) left unsuppressed in a stack. */
function nagFindings(stack: Stack, level: 'error' | 'warning'): string[] {
  const artifact = stack.node.root as unknown as {
    synth(): { getStackArtifact(id: string): { messages: SynthesisMessage[] } };
  };
  return artifact
    .synth()
    .getStackArtifact(stack.artifactId)
    .messages.filter((m) => m.level === level && /AwsSolutions-/.test(String(m.entry.data)))
    .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
}

describe('cdk-nag AwsSolutions', () => {
  for (const [name, context] of [
    ['defaults (dev, FIFO)', {}],
    [
      'prod, standard cost stream, producers and e-mails',
      {
        stage: 'prod',
        costStreamKind: 'standard',
        costEventsPublishers: '111122223333',
        budgetAlertsPublishers: 'arn:aws:iam::444455556666:role/forwarder',
        notificationEmails: 'finops@example.com',
        opsEmails: 'oncall@example.com',
      },
    ],
    [
      'reconciliation under a payer role in another account',
      {
        reconciliationRoleArn: 'arn:aws:iam::999999999999:role/billing-dedup-reconciliation-reader',
        reconciliationExternalId: 'a1b2-c3d4',
      },
    ],
    [
      'export sources (prefix-scoped reads)',
      {
        exportSources: [
          { tenant: 'acme', prefix: 'acme/' },
          { tenant: 'globex', prefix: 'exports/globex.eu/', source: 'azure' },
        ],
      },
    ],
    [
      'an existing export bucket with its own key',
      {
        exportBucketName: 'finops-exports',
        exportBucketKeyArn:
          'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
        exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
      },
    ],
    [
      'Azure exports copied by the stage (secret, prefix and cursor-scoped)',
      {
        exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
        azureExports: [
          {
            tenant: 'acme',
            storageAccountUrl: 'https://acmecosts.blob.core.windows.net',
            container: 'exports',
            exportFolder: 'cost-exports/acme-focus-daily/',
            secretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-azure-AbCdEf',
          },
        ],
      },
    ],
    [
      'GCP billing tables read by the stage (secret, export folder and cursor-scoped)',
      {
        exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
        gcpBillingExports: [
          {
            tenant: 'acme',
            jobProject: 'acme-billing',
            table: 'acme-billing.billing.gcp_billing_export_v1_012345_6789AB_CDEF01',
            location: 'US',
            secretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:acme-gcp-AbCdEf',
          },
        ],
      },
    ],
    [
      'Data Exports created by the stage, from another region',
      {
        region: 'eu-west-1',
        account: '111122223333',
        exportSources: [{ tenant: 'acme', prefix: 'acme/' }],
        dataExports: [{ prefix: 'acme/', name: 'acme-cur2', table: 'cur2' }],
      },
    ],
    [
      'push endpoint (Pub/Sub, Azure, ingest API with API keys and IAM callers)',
      {
        pushEndpoint: {
          pubsub: {
            audience: 'https://push.example.com/pubsub',
            serviceAccounts: { 'billing-push@acme.iam.gserviceaccount.com': 'acme' },
          },
          azureTenants: ['acme'],
          ingest: true,
          iamCallers: [
            {
              principal: 'arn:aws:iam::111122223333:role/metering-producer',
              tenant: 'acme',
              source: 'metering',
            },
          ],
        },
      },
    ],
  ] as const) {
    describe(name, () => {
      let s: Synthesized;
      beforeAll(() => {
        s = synth(context, { nag: true });
      });

      it('is applied to the app', () => {
        expect(Aspects.of(s.app).all.some((a) => a instanceof AwsSolutionsChecks)).toBe(true);
      });

      it.each(['stateful', 'stateless'] as const)(
        '%s stack: no unsuppressed errors or warnings',
        (which) => {
          const stack = s[which];
          expect(nagFindings(stack, 'error')).toEqual([]);
          expect(nagFindings(stack, 'warning')).toEqual([]);
        },
      );

      it('data-exports stack (when configured): no unsuppressed errors or warnings', () => {
        for (const stack of s.dataExports ? [s.dataExports] : []) {
          expect(nagFindings(stack, 'error')).toEqual([]);
          expect(nagFindings(stack, 'warning')).toEqual([]);
        }
      });

      it('every suppression (if any) names a rule and a specific reason', () => {
        for (const stack of [s.stateful, s.stateless, ...(s.dataExports ? [s.dataExports] : [])]) {
          for (const c of stack.node.findAll()) {
            const meta = c.node.metadata.find((m) => m.type === 'cdk_nag');
            const cfn = (c as unknown as { cfnOptions?: { metadata?: Record<string, unknown> } })
              .cfnOptions?.metadata?.cdk_nag as
              { rules_to_suppress?: { id: string; reason: string }[] } | undefined;
            for (const rule of [
              ...(cfn?.rules_to_suppress ?? []),
              ...((meta?.data as { id: string; reason: string }[]) ?? []),
            ]) {
              expect(rule.id).toMatch(/^AwsSolutions-[A-Z0-9]+$/);
              expect(rule.reason.length).toBeGreaterThanOrEqual(30);
            }
          }
        }
      });
    });
  }
});
