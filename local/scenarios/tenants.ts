/** Who and when the sample bills: tenants with their accounts, the two months, SKUs. */
export interface TenantSpec {
  tenant: string;
  awsAccounts: string[];
  gcpBillingAccount: string;
  gcpProjects: string[];
  currency: string;
}

export const TENANTS: readonly TenantSpec[] = [
  {
    tenant: 'acme',
    awsAccounts: ['200000000011', '200000000012'],
    gcpBillingAccount: '0A1B2C-3D4E5F-6A7B8C',
    gcpProjects: ['acme-analytics-prod'],
    currency: 'USD',
  },
  {
    tenant: 'globex',
    awsAccounts: ['300000000021', '300000000022'],
    gcpBillingAccount: '1B2C3D-4E5F6A-7B8C9D',
    gcpProjects: ['globex-data-lake'],
    currency: 'EUR',
  },
  {
    tenant: 'initech',
    awsAccounts: ['400000000031'],
    gcpBillingAccount: '2C3D4E-5F6A7B-8C9D0E',
    gcpProjects: ['initech-ml-4411', 'initech-web-7730'],
    currency: 'USD',
  },
];

/** A GCP billing account whose snake_case events carry no tenant: booked to `default`. */
export const LEGACY_ACCOUNT = 'billing-9Z8Y7X-LEGACY';
export const MONTHS = ['2026-10', '2026-11'] as const;
export const AWS_SKUS = [
  'BoxUsage:m6i.large',
  'BoxUsage:c6i.xlarge',
  'TimedStorage-ByteHrs',
  'DataTransfer-Out-Bytes',
];
export const GCP_SKUS = [
  'CP-COMPUTEENGINE-VMIMAGE-N2-STANDARD-4',
  'BQ-ANALYSIS-BYTES',
  'GCS-STANDARD-STORAGE',
];
