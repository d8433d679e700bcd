import { AppError } from '../../shared/errors.js';
import { randomToken, type Branded, type WorkspaceId } from '../../shared/ids.js';
import type { CreateInvoiceInput } from '../invoices/index.js';
import type { Schedule } from './schedule.js';

export type AutomationId = Branded<string, 'AutomationId'>;

export const AUTOMATION_STATUSES = ['active', 'paused', 'ended'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

/**
 * Why an automation is paused: `paused_by_owner`, or the code and message of a refusal that running it
 * again cannot fix (insufficient_credits, return_origin_not_allowed, amount_too_large, …).
 */
export interface PausedReason {
  readonly code: string;
  readonly message: string;
}

/** The invoice an automation creates at each occurrence: the fields of POST /invoices it may set. */
export type InvoiceTemplate = Pick<
  CreateInvoiceInput,
  'amount' | 'network' | 'expiresIn' | 'externalId' | 'description' | 'successUrl' | 'cancelUrl'
>;

/**
 * A template as a client sends it: also `payTo`, which only the workspace wallet passes (checked as
 * POST /invoices checks it) and which is then dropped: every invoice pays the workspace wallet.
 */
export type InvoiceTemplateInput = InvoiceTemplate & Pick<CreateInvoiceInput, 'payTo'>;

/** The template to keep: the input without `payTo`. */
export function storedTemplate(input: InvoiceTemplateInput): InvoiceTemplate {
  const { payTo: _payTo, ...template } = input;
  return template;
}

/** Creates an invoice from a template on a schedule (issue: scheduled invoices, `invoice.scheduled`). */
export interface Automation {
  readonly workspaceId: WorkspaceId;
  readonly id: AutomationId;
  readonly name: string;
  readonly template: InvoiceTemplate;
  readonly schedule: Schedule;
  readonly status: AutomationStatus;
  readonly pausedReason: PausedReason | null;
  /** The number of the next occurrence to run (1 for the first). */
  readonly nextOccurrence: number;
  /** Invoices created. */
  readonly occurrences: number;
  /** Occurrences passed over: missed by more than one period, or due while paused. */
  readonly skipped: number;
  readonly lastInvoiceId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export function newAutomationId(): AutomationId {
  return `aut_${randomToken()}` as AutomationId;
}

/**
 * The invoice fields of occurrence `n`: the template, with `{n}` (the occurrence number) and `{date}`
 * (its UTC date, YYYY-MM-DD) replaced in `externalId`.
 */
export function invoiceInputOf(template: InvoiceTemplateInput, occurrence: number, at: Date): CreateInvoiceInput {
  const { externalId, ...rest } = template;
  return {
    ...rest,
    ...(externalId !== undefined && {
      externalId: externalId.replaceAll('{n}', String(occurrence)).replaceAll('{date}', at.toISOString().slice(0, 10)),
    }),
  };
}

/** The owner's commands; the schedule's own steps are in dueOccurrence. */
export type AutomationCommand = 'pause' | 'resume' | 'end';

export function command(automation: Automation, name: AutomationCommand): Partial<Automation> {
  const { status } = automation;
  if (status === 'ended')
    throw new AppError('automation_ended', 'This automation has ended; create a new one to start again.');
  if (name === 'end') return { status: 'ended' };
  if (name === 'pause') {
    if (status === 'paused') return {};
    return { status: 'paused', pausedReason: { code: 'paused_by_owner', message: 'Paused by its owner.' } };
  }
  if (status === 'active') return {};
  return { status: 'active', pausedReason: null };
}
