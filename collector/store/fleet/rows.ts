/** Rows of the fleet tables as both backends read them, and their records (types.ts). */
import type { ConfigRevision, ConfigTarget, FeedConfigStatus, FeedIdentity, IdentityAction, IdentityChange, IdentityConflict } from "./types.ts";

type Num = number | string;
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export interface IdentityRow {
  tenant: string;
  feed: string;
  instance: string;
  public_key: string | null;
  host: string | null;
  tags: string;
  since: Num;
  seen_at: Num;
}

export function toIdentity(r: IdentityRow): FeedIdentity {
  return { tenant: r.tenant, feed: r.feed, instance: r.instance, publicKey: opt(r.public_key), host: opt(r.host), tags: JSON.parse(r.tags), since: Number(r.since), seenAt: Number(r.seen_at) };
}

export interface ConflictRow {
  tenant: string;
  feed: string;
  instance: string;
  public_key: string | null;
  host: string | null;
  first_at: Num;
  last_at: Num;
  attempts: Num;
}

export function toConflict(r: ConflictRow): IdentityConflict {
  return { tenant: r.tenant, feed: r.feed, instance: r.instance, publicKey: opt(r.public_key), host: opt(r.host), firstAt: Number(r.first_at), lastAt: Number(r.last_at), attempts: Number(r.attempts) };
}

export interface ChangeRow {
  tenant: string;
  feed: string;
  at: Num;
  author: string;
  action: string;
  from_instance: string | null;
  to_instance: string | null;
}

export function toChange(r: ChangeRow): IdentityChange {
  return { tenant: r.tenant, feed: r.feed, at: Number(r.at), author: r.author, action: r.action as IdentityAction, from: opt(r.from_instance), to: opt(r.to_instance) };
}

export interface RevisionRow {
  tenant: string;
  revision: Num;
  target: string;
  config: string;
  author: string;
  at: Num;
  comment: string | null;
}

export function toRevision(r: RevisionRow): ConfigRevision {
  return { tenant: r.tenant, revision: Number(r.revision), target: JSON.parse(r.target) as ConfigTarget, config: JSON.parse(r.config), author: r.author, at: Number(r.at), comment: opt(r.comment) };
}

export interface StatusRow {
  tenant: string;
  feed: string;
  instance: string | null;
  revision: Num;
  state: string;
  running: Num;
  error: string | null;
  kept: string | null;
  at: Num;
}

export function toStatus(r: StatusRow): FeedConfigStatus {
  return {
    tenant: r.tenant,
    feed: r.feed,
    instance: opt(r.instance),
    revision: Number(r.revision),
    state: r.state as FeedConfigStatus["state"],
    running: Number(r.running),
    error: opt(r.error),
    kept: r.kept === null ? undefined : JSON.parse(r.kept),
    at: Number(r.at),
  };
}

/** Undefined fields out, so records compare equal whichever backend read them. */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
