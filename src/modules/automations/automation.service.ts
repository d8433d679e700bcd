import type { Db, Executor } from '../../db/database.js';
import { RetryLater, enqueueJob, expediteJob } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { append } from '../events/index.js';
import { IDEMPOTENCY_TTL_SECONDS, checkIdempotencyKey, createIdempotently, requestHash } from '../idempotency/index.js';
import { checkPayTo, presentInvoice, type InvoiceService, type ValidInvoiceInput } from '../invoices/index.js';
import {
  command,
  invoiceInputOf,
  newAutomationId,
  storedTemplate,
  type Automation,
  type AutomationCommand,
  type AutomationId,
  type InvoiceTemplateInput,
} from './automation.js';
import { UPCOMING_DATES, automationCursor, presentAutomation, type AutomationView } from './automation.present.js';
import {
  findAutomation,
  insertAutomation,
  listAutomations,
  updateAutomation,
  type AutomationChanges,
} from './automation.repo.js';
import { checkSchedule, dueOccurrence, occurrenceAt, upcoming, type Schedule } from './schedule.js';

export const RUN_AUTOMATION_JOB = 'automations.run';
const IDEMPOTENCY_SCOPE = 'automations.create';
/** The job of an automation never sleeps longer: a changed schedule is noticed within this bound. */
const MAX_SLEEP_SECONDS = 3600;

export interface AutomationServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly invoices: InvoiceService;
  /** With invoiceRetentionDays, how its events show an invoice (InvoicePresentation). */
  readonly publicBaseUrl: URL;
  readonly invoiceRetentionDays: number;
  /** Told of each invoice created and each pause. */
  readonly log: LogTarget;
}

/** A schedule as a client sends it (POST /automations, GET /automations/preview). */
export interface ScheduleInput {
  readonly every: Schedule['every'];
  readonly interval?: number;
  readonly startAt: string;
  readonly endAt?: string;
  readonly maxOccurrences?: number;
}

export interface CreateAutomationInput {
  readonly name: string;
  readonly template: InvoiceTemplateInput;
  readonly schedule: ScheduleInput;
}

export interface UpdateAutomationInput {
  readonly name?: string;
  readonly template?: InvoiceTemplateInput;
  readonly endAt?: string | null;
  readonly maxOccurrences?: number | null;
}

/**
 * Automations: an invoice template on a schedule. Each due occurrence creates exactly one invoice, with
 * its credits, its number and an `invoice.scheduled` event and webhook, in one transaction with the
 * automation's own row. A refusal that running again cannot fix pauses the automation instead.
 */
export class AutomationService {
  constructor(private readonly deps: AutomationServiceDeps) {}

  async create(
    workspaceId: WorkspaceId,
    input: CreateAutomationInput,
    options: { idempotencyKey: string | string[] | undefined },
  ): Promise<{ automation: AutomationView; replayed: boolean }> {
    const key = checkIdempotencyKey(options.idempotencyKey);
    const now = this.deps.clock.now();
    const schedule = checkSchedule(scheduleOf(input.schedule), now);
    await this.checkTemplate(this.deps.db, workspaceId, input.template, schedule);
    const claim = {
      scope: IDEMPOTENCY_SCOPE,
      key,
      requestHash: requestHash(input),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000),
    };
    const outcome = await this.deps.db.transaction().execute((trx) =>
      createIdempotently(trx, workspaceId, claim, {
        replay: async (response) => (await findAutomation(trx, workspaceId, (response as { id: AutomationId }).id))!,
        create: async () => {
          const automation: Automation = {
            workspaceId,
            id: newAutomationId(),
            name: input.name,
            template: storedTemplate(input.template),
            schedule,
            status: 'active',
            pausedReason: null,
            nextOccurrence: 1,
            occurrences: 0,
            skipped: 0,
            lastInvoiceId: null,
            createdAt: now,
            updatedAt: now,
          };
          await insertAutomation(trx, automation);
          await this.scheduleRun(trx, automation);
          return { made: automation, response: { id: automation.id } };
        },
      }),
    );
    if (outcome.kind === 'reused')
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request body. Use a new key for a new automation.',
      );
    return { automation: this.present(outcome.made), replayed: outcome.kind === 'replay' };
  }

  /** The first dates `input` would run at, checked as on creation (400 `invalid_schedule`); nothing is stored. */
  preview(input: ScheduleInput): Date[] {
    return upcoming(checkSchedule(scheduleOf(input), this.deps.clock.now()), 1, UPCOMING_DATES);
  }

  async get(workspaceId: WorkspaceId, id: AutomationId): Promise<AutomationView> {
    return this.present(await this.find(this.deps.db, workspaceId, id));
  }

  async list(
    workspaceId: WorkspaceId,
    query: { cursor?: string; limit: number },
  ): Promise<{ automations: AutomationView[]; nextCursor: string | null }> {
    const before = automationCursor.parse(query.cursor);
    const rows = await listAutomations(this.deps.db, workspaceId, { before, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      automations: page.map((automation) => this.present(automation)),
      nextCursor: rows.length > query.limit && last ? automationCursor.encode(last) : null,
    };
  }

  /** Changes the name, the template (checked as at creation), `endAt` or `maxOccurrences`. */
  async update(workspaceId: WorkspaceId, id: AutomationId, input: UpdateAutomationInput): Promise<AutomationView> {
    const at = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const automation = await this.find(trx, workspaceId, id, true);
      if (automation.status === 'ended')
        throw new AppError('automation_ended', 'This automation has ended; create a new one to start again.');
      const changes: AutomationChanges = {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.template !== undefined && { template: storedTemplate(input.template) }),
        ...(input.endAt !== undefined && { endAt: input.endAt === null ? null : new Date(input.endAt) }),
        ...(input.maxOccurrences !== undefined && { maxOccurrences: input.maxOccurrences }),
      };
      const schedule: Schedule = {
        ...automation.schedule,
        ...(changes.endAt !== undefined && { endAt: changes.endAt }),
        ...(changes.maxOccurrences !== undefined && { maxOccurrences: changes.maxOccurrences }),
      };
      if (schedule.endAt !== null && schedule.endAt.getTime() <= schedule.startAt.getTime())
        throw new AppError('invalid_schedule', 'endAt must be after the schedule startAt.');
      if (input.template !== undefined) await this.checkTemplate(trx, workspaceId, input.template, schedule);
      const updated = await updateAutomation(trx, automation, changes, at);
      await this.scheduleRun(trx, updated);
      return this.present(updated);
    });
  }

  /** pause, resume or end. Resuming continues with the next occurrence still to come. */
  async apply(workspaceId: WorkspaceId, id: AutomationId, name: AutomationCommand): Promise<AutomationView> {
    const at = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const automation = await this.find(trx, workspaceId, id, true);
      const changes: AutomationChanges = command(automation, name);
      if (name === 'resume' && automation.status === 'paused') {
        const next = firstNotBefore(automation.schedule, automation.nextOccurrence, at);
        Object.assign(changes, {
          nextOccurrence: next,
          skipped: automation.skipped + (next - automation.nextOccurrence),
        });
      }
      const updated = await updateAutomation(trx, automation, changes, at);
      if (updated.status === 'active') await this.scheduleRun(trx, updated);
      return this.present(updated);
    });
  }

  /**
   * The job of one automation: runs the due occurrence, if any, then sleeps until the next one. Safe to
   * run twice at once (the automation row is locked) and again after a crash (the occurrence and its
   * invoice commit together, under a key derived from the occurrence).
   */
  async run(workspaceId: WorkspaceId, id: AutomationId): Promise<void> {
    const now = this.deps.clock.now();
    let refusal: AppError | undefined;
    let ran: Automation | undefined;
    let created: { occurrence: number; invoiceId: string } | undefined;
    try {
      ran = await this.deps.db.transaction().execute(async (trx) => {
        const automation = await findAutomation(trx, workspaceId, id, true);
        if (!automation || automation.status !== 'active') return undefined;
        const due = dueOccurrence(automation.schedule, automation.nextOccurrence, now);
        if (due.kind === 'end') return updateAutomation(trx, automation, { status: 'ended' }, now);
        if (due.kind === 'wait') return automation;
        const next = await this.createOccurrence(trx, automation, due.occurrence, due.skipped, now);
        created = { occurrence: due.occurrence, invoiceId: next.lastInvoiceId! };
        return next;
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refusal = error;
    }
    if (refusal) {
      // Nothing of the occurrence was written. Running again would be refused again: pause, and say why.
      const pausedReason = { code: refusal.code, message: refusal.message };
      ran = await this.deps.db.transaction().execute(async (trx) => {
        const automation = await findAutomation(trx, workspaceId, id, true);
        if (!automation || automation.status !== 'active') return undefined;
        return updateAutomation(trx, automation, { status: 'paused', pausedReason }, now);
      });
      if (ran)
        this.deps.log.warn(
          { workspaceId, automationId: id, code: refusal.code },
          `automation paused: ${refusal.message}`,
        );
    } else if (created) {
      const { occurrence, invoiceId } = created;
      this.deps.log.info(
        { workspaceId, automationId: id, invoiceId },
        `automation created its invoice for occurrence ${occurrence}`,
      );
    }
    if (!ran || ran.status !== 'active') return;
    const next = dueOccurrence(ran.schedule, ran.nextOccurrence, this.deps.clock.now());
    if (next.kind !== 'wait') throw new RetryLater(0.001, next.kind === 'end' ? 'the schedule has ended' : 'due again');
    // To the millisecond: the worker wakes when its next job is due, so the invoice comes on time.
    const seconds = (next.at.getTime() - this.deps.clock.now().getTime()) / 1000;
    throw new RetryLater(Math.min(MAX_SLEEP_SECONDS, Math.max(0.001, seconds)), 'waiting for the next occurrence');
  }

  private async createOccurrence(
    trx: Executor,
    automation: Automation,
    occurrence: number,
    skipped: number,
    now: Date,
  ): Promise<Automation> {
    const { workspaceId } = automation;
    const input = invoiceInputOf(automation.template, occurrence, occurrenceAt(automation.schedule, occurrence));
    const valid = await this.checkInput(trx, workspaceId, input);
    const link = { id: automation.id, occurrence };
    const invoice = await this.deps.invoices.createScheduled(trx, workspaceId, valid, {
      key: `automation:${automation.id}:${occurrence}`,
      requestHash: requestHash(input),
      automation: link,
    });
    await append(trx, workspaceId, {
      type: 'invoice.scheduled',
      invoiceId: invoice.id,
      data: {
        invoice: presentInvoice(invoice, this.deps, now),
        automationId: automation.id,
        occurrence,
      },
      at: now,
    });
    return updateAutomation(
      trx,
      automation,
      {
        nextOccurrence: occurrence + 1,
        occurrences: automation.occurrences + 1,
        skipped: automation.skipped + skipped,
        lastInvoiceId: invoice.id,
      },
      now,
    );
  }

  /** Every rule of POST /invoices for the template, as its first occurrence would be created. */
  private async checkTemplate(
    db: Executor,
    workspaceId: WorkspaceId,
    template: InvoiceTemplateInput,
    schedule: Schedule,
  ): Promise<void> {
    await this.checkInput(db, workspaceId, invoiceInputOf(template, 1, schedule.startAt));
  }

  private async checkInput(
    db: Executor,
    workspaceId: WorkspaceId,
    input: ReturnType<typeof invoiceInputOf>,
  ): Promise<ValidInvoiceInput> {
    const valid = this.deps.invoices.validate(input);
    const workspace = await db
      .selectFrom('workspaces')
      .select(['return_origins', 'wallet_address'])
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (workspace) checkPayTo(input.payTo, workspace.wallet_address);
    const origin = valid.urlOrigins.find((candidate) => !workspace?.return_origins.includes(candidate));
    if (origin)
      throw new AppError(
        'return_origin_not_allowed',
        `${origin} is not an allowed checkout return origin (PUT /checkout-settings).`,
      );
    return valid;
  }

  /** The automation's job, due at its next occurrence (or now, to notice a change at once). */
  private async scheduleRun(trx: Executor, automation: Automation): Promise<void> {
    const at = occurrenceAt(automation.schedule, automation.nextOccurrence);
    await enqueueJob(trx, {
      kind: RUN_AUTOMATION_JOB,
      workspaceId: automation.workspaceId,
      payload: { automationId: automation.id },
      uniqueKey: automation.id,
      runAt: at,
    });
    await expediteJob(trx, RUN_AUTOMATION_JOB, automation.id);
  }

  private async find(db: Executor, workspaceId: WorkspaceId, id: AutomationId, lock = false): Promise<Automation> {
    const automation = await findAutomation(db, workspaceId, id, lock);
    if (!automation) throw new AppError('not_found', 'No such automation in this workspace.');
    return automation;
  }

  private present(automation: Automation): AutomationView {
    return presentAutomation(automation, this.deps.clock.now());
  }
}

/** The first occurrence from `from` on whose time has not passed. */
function firstNotBefore(schedule: Schedule, from: number, now: Date): number {
  let n = from;
  while (occurrenceAt(schedule, n).getTime() < now.getTime()) n += 1;
  return n;
}

function scheduleOf(input: ScheduleInput): Schedule {
  return {
    every: input.every,
    interval: input.interval ?? 1,
    startAt: new Date(input.startAt),
    endAt: input.endAt === undefined ? null : new Date(input.endAt),
    maxOccurrences: input.maxOccurrences ?? null,
  };
}
