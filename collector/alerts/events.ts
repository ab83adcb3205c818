import type { Event, EventType, StringMap } from "../../src/alerts/model.ts";
import { completeEvent, type EventInput } from "../../src/alerts/schemas.ts";
import { announceEvents } from "./announce.ts";
import type { AlertingContext } from "./context.ts";
import { type EventCriteria, eventMatches } from "./criteria.ts";
import { InvalidRequestError, NotFoundError } from "./errors.ts";
import { type Page, type Pager, paginate } from "./paging.ts";

const DEFAULT_ORDER = [
  { field: "ctime", ascending: false },
  { field: "id", ascending: false },
];

/** Stored events: those created through the API and those triggers fired. */
export class EventRecords {
  constructor(private readonly ctx: AlertingContext) {}

  /** With eventType ALERT (admin queries of the first version), alerts read as events. */
  async matching(tenants: readonly string[], c: EventCriteria, eventType: EventType = "EVENT"): Promise<Event[]> {
    const rows =
      eventType === "ALERT"
        ? await this.ctx.store.findAlerts({ tenants, startTime: c.startTime, endTime: c.endTime, ids: c.ids, triggerIds: c.triggerIds })
        : await this.ctx.store.findEvents({ ...c, tenants });
    return rows.filter((e) => eventMatches(e, c));
  }

  async find(tenants: readonly string[], c: EventCriteria, pager: Pager, eventType?: EventType): Promise<Page<Event>> {
    return paginate(await this.matching(tenants, c, eventType), pager, DEFAULT_ORDER);
  }

  async get(tenantId: string, id: string): Promise<Event> {
    const e = await this.ctx.store.event(tenantId, id);
    if (!e) throw new NotFoundError(`eventId: ${id} not found`);
    return e;
  }

  /** POST /events: stored, then evaluated; what it fires is stored before this resolves. */
  async create(tenantId: string, input: EventInput): Promise<Event> {
    const event = completeEvent(input, tenantId, this.ctx.now());
    await this.ctx.serial.run(async () => {
      const inserted = await this.ctx.store.insertEvents([event]);
      if (inserted.length === 0) throw new InvalidRequestError(`Event with ID [${event.id}] exists.`);
      await announceEvents(this.ctx, inserted);
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
      const doomed = await this.matching([tenantId], c);
      return this.ctx.store.deleteEvents(
        tenantId,
        doomed.map((e) => e.id),
      );
    });
  }
}
