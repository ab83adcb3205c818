import { completeEvent } from "../../src/alerts/complete.ts";
import type { Event, StringMap } from "../../src/alerts/model.ts";
import type { EventInput } from "../../src/alerts/schemas.ts";
import { commitAndAnnounce } from "./announce.ts";
import type { AlertingContext } from "./context.ts";
import { type EventCriteria, eventMatches } from "./criteria.ts";
import { InvalidRequestError, NotFoundError } from "./errors.ts";
import { type Page, type Pager, paginate } from "./paging.ts";

const DEFAULT_ORDER = [
  { field: "ctime", ascending: false },
  { field: "id", ascending: false },
];

/**
 * Stored events: those created through the API and those triggers fired. Alerts are events too
 * (an Alert is an Event with a lifecycle, and upstream kept them in one store): every event query
 * and stream reads both, unless `eventType` picks one. Changes through the event paths (tags,
 * deletes) touch events only; alerts have their own.
 */
export class EventRecords {
  constructor(private readonly ctx: AlertingContext) {}

  async matching(tenants: readonly string[], c: EventCriteria): Promise<Event[]> {
    const events = c.eventType === "ALERT" ? [] : await this.ctx.store.findEvents({ ...c, tenants });
    const alerts =
      c.eventType === "EVENT"
        ? []
        : await this.ctx.store.findAlerts({ tenants, startTime: c.startTime, endTime: c.endTime, ids: c.ids, triggerIds: c.triggerIds });
    return [...events, ...alerts].filter((e) => eventMatches(e, c));
  }

  async find(tenants: readonly string[], c: EventCriteria, pager: Pager): Promise<Page<Event>> {
    return paginate(await this.matching(tenants, c), pager, DEFAULT_ORDER);
  }

  async get(tenantId: string, id: string): Promise<Event> {
    const e = (await this.ctx.store.event(tenantId, id)) ?? (await this.ctx.store.alert(tenantId, id));
    if (!e) throw new NotFoundError(`eventId: ${id} not found`);
    return e;
  }

  /** POST /events: stored, then evaluated; what it fires is stored before this resolves. */
  async create(tenantId: string, input: EventInput): Promise<Event> {
    const event = completeEvent(input, tenantId, this.ctx.now());
    await this.ctx.serial.run(async () => {
      if (await this.ctx.store.event(tenantId, event.id)) throw new InvalidRequestError(`Event with ID [${event.id}] exists.`);
      await commitAndAnnounce(this.ctx, { newEvents: [event] });
    });
    this.ctx.engine.sendEvents([event]);
    await this.ctx.serial.idle();
    return event;
  }

  private change(tenantId: string, ids: readonly string[], change: (e: Event) => Event): Promise<void> {
    return this.ctx.serial.run(async () => {
      const found = await this.ctx.store.findEvents({ tenants: [tenantId], ids });
      await this.ctx.store.updateEvents(found.map(change));
    });
  }

  addTags(tenantId: string, ids: readonly string[], tags: StringMap): Promise<void> {
    return this.change(tenantId, ids, (e) => ({ ...e, tags: { ...e.tags, ...tags } }));
  }

  removeTags(tenantId: string, ids: readonly string[], names: readonly string[]): Promise<void> {
    return this.change(tenantId, ids, (e) => {
      const tags = { ...e.tags };
      for (const n of names) delete tags[n];
      return { ...e, tags };
    });
  }

  deleteMatching(tenantId: string, c: EventCriteria): Promise<number> {
    return this.ctx.serial.run(async () => {
      const doomed = await this.matching([tenantId], { ...c, eventType: "EVENT" });
      return this.ctx.store.deleteEvents(
        tenantId,
        doomed.map((e) => e.id),
      );
    });
  }
}
