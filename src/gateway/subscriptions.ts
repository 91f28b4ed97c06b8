/**
 * MCP resource subscriptions through the gateway: resources/subscribe and /unsubscribe from
 * each client, subscribe_resource / unsubscribe_resource on the instance that serves the URI,
 * and the instance's updates (host.onResourceUpdated) fanned out as
 * notifications/resources/updated to exactly the clients that subscribed.
 *
 * Bookkeeping, per (instance, URI):
 * - ref-counted across clients: the instance is asked to subscribe when the first client does
 *   and to unsubscribe when the last one leaves (unsubscribes, or disconnects), so one client
 *   leaving never ends another's subscription;
 * - the requests for one (instance, URI) go out one after another, so a subscribe never
 *   overtakes the unsubscribe before it and leaves the upstream in the wrong state;
 * - an instance that got a new worker (a crash restart or a hot reload: `restarts` moved) is
 *   subscribed again and its clients are told the URI updated (changes in the gap were not
 *   seen); when that fails, or the instance is no longer exposed, the subscription ends and its
 *   clients get a warning in their log stream (MCP has no "subscription ended" message).
 *
 * Subscribing is a read: it is offered wherever the connector's resources are (exposure.ts
 * exposes an mcp connector whole); nothing here can change the upstream's resources.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pbError, toWire } from "../errors.js";
import type { Host } from "../host/api.js";
import type { Passthrough } from "./resources.js";
import { protocolError } from "./rpc-errors.js";

interface Subscription {
  instance: string;
  uri: string;
  clients: Set<Server>;
  /** The instance's restart count when it was last subscribed. */
  restarts: number;
  /** Settles when the instance answered the last subscribe. */
  ready: Promise<unknown>;
}

type Say = (level: "info" | "warning", message: string, to: Iterable<Server>) => void;

/** Told of each client's subscribe and unsubscribe (shared sessions record them for the other replicas). */
export interface SubscriptionHooks {
  subscribed(client: Server, instance: string, uri: string): Promise<void>;
  unsubscribed(client: Server, uri: string): Promise<void>;
}

const keyOf = (instance: string, uri: string) => `${instance}\n${uri}`;
const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

export class Subscriptions {
  private readonly subs = new Map<string, Subscription>();
  private readonly byClient = new Map<Server, Set<string>>();
  /** Per key, the last request sent to the instance: the next one waits for it. */
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly stopListening: () => void;
  hooks: SubscriptionHooks | null = null;

  constructor(
    private readonly host: Host,
    private readonly say: Say,
  ) {
    this.stopListening = host.onResourceUpdated((u) => this.updated(u.instance, u.uri));
  }

  /** The handlers of one client's server; `ownerOf` says which instance serves a URI (after the boot). */
  register(
    server: Server,
    current: () => Passthrough,
    ownerOf: (uri: string) => Promise<string | undefined>,
    booted: () => Promise<void>,
    /** Refuses a URI whose instance this client's policy does not give it whole (clients/caller.ts). */
    mayUse: (instance: string, uri: string) => void = () => undefined,
  ): void {
    server.setRequestHandler(SubscribeRequestSchema, async (req) => {
      await booted();
      const owner = await ownerOf(req.params.uri).catch(() => undefined);
      const instance = this.route(req.params.uri, current(), owner);
      mayUse(instance, req.params.uri);
      await this.subscribe(server, instance, req.params.uri);
      try {
        await this.hooks?.subscribed(server, instance, req.params.uri);
      } catch (err) {
        // Not recorded, so no other replica could carry it on: the client is told, not left to trust it.
        await this.unsubscribe(server, req.params.uri);
        throw protocolError(err);
      }
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      await this.unsubscribe(server, req.params.uri);
      await this.hooks
        ?.unsubscribed(server, req.params.uri)
        .catch((err: unknown) => Promise.reject(protocolError(err)));
      return {};
    });
  }

  async subscribe(client: Server, instance: string, uri: string): Promise<void> {
    const key = keyOf(instance, uri);
    const mine = this.byClient.get(client) ?? new Set<string>();
    let sub = this.subs.get(key);
    if (mine.has(key) && sub) {
      // Subscribed already (MCP subscriptions are a set): answer when the instance has.
      return sub.ready.then(
        () => undefined,
        (err: unknown) => Promise.reject(protocolError(err)),
      );
    }
    if (!sub) {
      sub = {
        instance,
        uri,
        clients: new Set(),
        restarts: this.restartsOf(instance),
        ready: this.send(key, instance, "subscribe_resource", uri),
      };
      this.subs.set(key, sub);
    }
    sub.clients.add(client);
    mine.add(key);
    this.byClient.set(client, mine);
    try {
      await sub.ready;
    } catch (err) {
      // The instance refused: nobody holds this subscription.
      this.forget(client, key);
      throw protocolError(err);
    }
  }

  /** Ends `client`'s subscription to `uri` (on whichever instance it was); unknown URIs are fine. */
  async unsubscribe(client: Server, uri: string): Promise<void> {
    const keys = [...(this.byClient.get(client) ?? [])].filter((k) => this.subs.get(k)?.uri === uri);
    await Promise.all(keys.map((k) => this.release(client, k)));
  }

  /** A client went away: everything it held is released. */
  drop(client: Server): void {
    for (const key of [...(this.byClient.get(client) ?? [])]) void this.release(client, key);
    this.byClient.delete(client);
  }

  /**
   * After each catalog rebuild: subscriptions of instances no longer exposed end; those of
   * instances that got a new worker are renewed.
   */
  sync(exposed: Set<string>): void {
    if (this.subs.size === 0) return;
    const restarts = new Map(this.host.liveStatus().map((s) => [s.id, s.restarts]));
    for (const [key, sub] of [...this.subs]) {
      if (!exposed.has(sub.instance) || !restarts.has(sub.instance)) {
        this.end(key, sub, `${sub.instance} is no longer exposed`);
        continue;
      }
      const now = restarts.get(sub.instance)!;
      if (now === sub.restarts) continue;
      sub.restarts = now;
      sub.ready = this.send(key, sub.instance, "subscribe_resource", sub.uri);
      sub.ready.then(
        () => this.updated(sub.instance, sub.uri),
        (err: unknown) =>
          this.subs.get(key) === sub &&
          this.end(key, sub, `${sub.instance} restarted and refused to subscribe again (${toWire(err).message})`),
      );
    }
  }

  /** The gateway is stopping: the instances stop with it, so nothing is unsubscribed one by one. */
  close(): void {
    this.stopListening();
    this.subs.clear();
    this.byClient.clear();
  }

  private route(uri: string, p: Passthrough, owner: string | undefined): string {
    const ok = (id: string | undefined) => id !== undefined && p.subscribable.some((c) => c.id === id);
    // A URI nobody listed (a resource link in a tool result) goes to the only instance that could serve it.
    const only = p.subscribable.length === 1 && (owner === undefined || ok(owner)) ? p.subscribable[0].id : undefined;
    const target = ok(owner) ? owner : only;
    if (target) return target;
    const why =
      owner !== undefined
        ? `${owner}, which lists it, does not take subscriptions (or is not available now)`
        : `no connector listed it, and ${p.subscribable.length === 0 ? "no connector takes subscriptions now" : "several connectors take subscriptions"}`;
    throw protocolError(
      pbError("PB_ERR_GATEWAY_RESOURCE_UNKNOWN", `Cannot subscribe to ${clip(uri)}: ${why}.`, { uri: clip(uri) }),
      ErrorCode.InvalidParams,
    );
  }

  private updated(instance: string, uri: string): void {
    const sub = this.subs.get(keyOf(instance, uri));
    if (!sub) return;
    for (const client of sub.clients) void client.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  /** `client` lets go of `key`; the last one out unsubscribes the instance. */
  private async release(client: Server, key: string): Promise<void> {
    const sub = this.forget(client, key);
    if (!sub || sub.clients.size > 0) return;
    try {
      await this.send(key, sub.instance, "unsubscribe_resource", sub.uri);
    } catch (err) {
      // The client is unsubscribed here either way: nothing more reaches it.
      this.host.logger.warn(
        { instance: sub.instance },
        `unsubscribing ${clip(sub.uri)} on ${sub.instance} failed: ${toWire(err).message}`,
      );
    }
  }

  /** Removes `client` from `key`; deletes the subscription when nobody is left. Returns it. */
  private forget(client: Server, key: string): Subscription | undefined {
    this.byClient.get(client)?.delete(key);
    const sub = this.subs.get(key);
    if (!sub) return undefined;
    sub.clients.delete(client);
    if (sub.clients.size === 0) this.subs.delete(key);
    return sub;
  }

  private end(key: string, sub: Subscription, why: string): void {
    this.subs.delete(key);
    for (const client of sub.clients) this.byClient.get(client)?.delete(key);
    this.say(
      "warning",
      `The subscription to ${clip(sub.uri)} ended: ${why}. Subscribe again when it is back.`,
      sub.clients,
    );
    // Best effort: the instance may still hold it.
    if (this.host.instanceIds().includes(sub.instance))
      this.send(key, sub.instance, "unsubscribe_resource", sub.uri).catch(() => undefined);
  }

  /** Sends one request for `key` after the previous one settled. */
  private send(
    key: string,
    instance: string,
    method: "subscribe_resource" | "unsubscribe_resource",
    uri: string,
  ): Promise<unknown> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(() => this.host.call(instance, method, [uri]));
    this.tails.set(key, next);
    const clear = () => void (this.tails.get(key) === next && this.tails.delete(key));
    next.then(clear, clear);
    return next;
  }

  private restartsOf(instance: string): number {
    return this.host.liveStatus().find((s) => s.id === instance)?.restarts ?? 0;
  }
}
