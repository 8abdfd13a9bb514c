/**
 * The provider's own totals for AWS from its invoices: the Invoicing API `ListInvoiceSummaries`, per
 * billing account and billing period (`Selector` ACCOUNT_ID, `Filter.BillingPeriod`), every page
 * followed. The period's figure of an account is the sum of its invoices less its credit memos
 * (payment receipts are not charges), in the invoice's base currency with tax (`TotalAmount`): the
 * billing currency and tax-included amount the ledger books.
 *
 * - A credit memo counts as −|TotalAmount| whatever sign the API gives it.
 * - Every invoice and credit memo of one account-period must be in one currency: a mix is refused
 *   (the run fails naming them) rather than summed or converted.
 * - The figure is final once the period has ended and every asked account has an invoice for it;
 *   before, it is estimated (recorded, never paged).
 *
 * Throttling is retried like Cost Explorer's (the repo's one back-off); any other error surfaces.
 */
import {
  ListInvoiceSummariesCommand,
  type InvoiceSummary,
  type InvoicingClient,
  type ListInvoiceSummariesCommandOutput,
} from '@aws-sdk/client-invoicing';
import Big from 'big.js';
import { formatDecimal, toDecimal } from '../core/decimal';
import type { ProviderAnswer, ProviderFigure } from '../core/reconciliation/reconcile';
import { jitteredBackoff, type Backoff } from './dynamo-kit/backoff';

const THROTTLING = new Set(['ThrottlingException', 'LimitExceededException']);
export const INVOICING_ATTEMPTS = 6;

export interface InvoicingTotalsOptions {
  client: InvoicingClient;
  /** The billing accounts whose invoices are summed (config `reconciliationInvoiceAccounts`). */
  accounts: readonly string[];
  /** The current time: a period that has not ended is never final. */
  now: () => number;
  backoff?: Backoff;
  attempts?: number;
  /** The tenant that owns every account asked about, if one does (config `reconciliationPayerTenant`). */
  claimedBy?: string;
}

const isThrottling = (error: unknown): boolean =>
  THROTTLING.has((error as { name?: string })?.name ?? '');

/** An account-period's invoices in more than one currency: never summed. */
export class InvoiceCurrencyMismatch extends Error {
  constructor(accountId: string, period: string, currencies: readonly string[]) {
    super(
      `invoices of account ${accountId} for ${period} are in ${currencies.join(' and ')}: ` +
        'the reconciliation compares one currency and converts nothing; compare them by hand',
    );
    this.name = 'InvoiceCurrencyMismatch';
  }
}

const periodEnded = (period: string, now: number): boolean => {
  const [year, month] = period.split('-').map(Number);
  return now >= Date.UTC(year, month, 1);
};

export class InvoicingTotals {
  /** Requests made so far (each page is one). */
  requests = 0;
  private readonly backoff: Backoff;
  private readonly attempts: number;

  constructor(private readonly options: InvoicingTotalsOptions) {
    this.backoff = options.backoff ?? jitteredBackoff({ baseMs: 200, capMs: 5_000 });
    this.attempts = options.attempts ?? INVOICING_ATTEMPTS;
  }

  private async page(
    accountId: string,
    period: string,
    token?: string,
  ): Promise<ListInvoiceSummariesCommandOutput> {
    const [year, month] = period.split('-').map(Number);
    for (let attempt = 0; ; attempt++) {
      try {
        this.requests++;
        return await this.options.client.send(
          new ListInvoiceSummariesCommand({
            Selector: { ResourceType: 'ACCOUNT_ID', Value: accountId },
            Filter: { BillingPeriod: { Year: year, Month: month } },
            ...(token ? { NextToken: token } : {}),
          }),
        );
      } catch (error) {
        if (!isThrottling(error) || attempt + 1 >= this.attempts) throw error;
        await this.backoff(attempt);
      }
    }
  }

  private async invoicesOf(accountId: string, period: string): Promise<InvoiceSummary[]> {
    const invoices: InvoiceSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.page(accountId, period, token);
      invoices.push(...(page.InvoiceSummaries ?? []));
      token = page.NextToken || undefined;
    } while (token);
    return invoices;
  }

  /** One account's figure of the period (undefined when it has no invoice or credit memo). */
  private async figureOf(accountId: string, period: string) {
    const charges = (await this.invoicesOf(accountId, period)).filter(
      (invoice) => invoice.InvoiceType === 'INVOICE' || invoice.InvoiceType === 'CREDIT_MEMO',
    );
    const unpriced = charges.find((invoice) => !invoice.BaseCurrencyAmount?.CurrencyCode);
    if (unpriced)
      throw new Error(
        `invoice ${unpriced.InvoiceId} of account ${accountId} for ${period} has no base currency`,
      );
    const currencies = [
      ...new Set(charges.map((invoice) => invoice.BaseCurrencyAmount?.CurrencyCode ?? '')),
    ].sort();
    if (currencies.length > 1) throw new InvoiceCurrencyMismatch(accountId, period, currencies);
    let total = new Big(0);
    for (const invoice of charges) {
      const amount = new Big(
        toDecimal(
          invoice.BaseCurrencyAmount?.TotalAmount,
          `invoice ${invoice.InvoiceId} TotalAmount`,
        ),
      );
      total =
        invoice.InvoiceType === 'CREDIT_MEMO' ? total.minus(amount.abs()) : total.plus(amount);
    }
    const invoiced = charges.some((invoice) => invoice.InvoiceType === 'INVOICE');
    const figure: ProviderFigure | undefined =
      charges.length === 0
        ? undefined
        : { accountId, period, currency: currencies[0], amount: formatDecimal(total) };
    return { figure, invoiced };
  }

  /** The billing accounts' figures of one `yyyy-mm` period. */
  async periodTotals(period: string): Promise<ProviderAnswer> {
    const figures: ProviderFigure[] = [];
    let everyAccountInvoiced = true;
    for (const accountId of this.options.accounts) {
      const { figure, invoiced } = await this.figureOf(accountId, period);
      if (figure) figures.push(figure);
      if (!invoiced) everyAccountInvoiced = false;
    }
    return {
      period,
      final: everyAccountInvoiced && periodEnded(period, this.options.now()),
      ...(this.options.claimedBy ? { claimedBy: this.options.claimedBy } : {}),
      figures,
    };
  }
}
