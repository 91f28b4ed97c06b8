/**
 * Resource subscriptions (subscribe_resource / unsubscribe_resource): the URIs this connector
 * holds on its server, and the server's notifications/resources/updated relayed to the host with
 * ctx.resourceUpdated. Kept here rather than on a session because a session can be replaced (a
 * lost connection reopened): the new session renews every subscription the old one held, then
 * reports each URI updated once, since changes in the gap were not seen.
 *
 * Only URIs subscribed through this connector are relayed: a server that notifies about others
 * (or floods) costs the host nothing beyond this filter.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { unsupported } from "patchbay/plugin";
import type { PluginContext } from "patchbay/plugin";
import type { RequestOpts } from "./connection.js";

/** Whether the server said at initialize that it takes resources/subscribe. */
export function offersSubscriptions(client: Client): boolean {
  return client.getServerCapabilities()?.resources?.subscribe === true;
}

export class ResourceSubscriptions {
  private readonly uris = new Set<string>();

  constructor(
    private readonly ctx: PluginContext,
    private readonly target: () => string,
  ) {}

  /** Called for every new session, right after it connected. */
  attach(client: Client, timeoutMs: number): void {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      const uri = n.params.uri;
      if (typeof uri === "string" && this.uris.has(uri)) this.ctx.resourceUpdated?.(uri);
    });
    if (this.uris.size === 0) return;
    if (!offersSubscriptions(client)) {
      this.ctx.log.warn("the reconnected server no longer offers resource subscriptions; they are dropped", {
        target: this.target(),
        count: this.uris.size,
      });
      for (const uri of this.uris) this.ctx.resourceUpdated?.(uri);
      this.uris.clear();
      return;
    }
    for (const uri of [...this.uris]) {
      client.subscribeResource({ uri }, { timeout: timeoutMs }).then(
        () => this.ctx.resourceUpdated?.(uri),
        (err: Error) =>
          this.ctx.log.warn("renewing a resource subscription on the new session failed", {
            target: this.target(),
            error: err.message,
          }),
      );
    }
  }

  async subscribe(client: Client, uri: string, opts: RequestOpts): Promise<void> {
    if (!offersSubscriptions(client)) throw this.unsupported();
    await client.subscribeResource({ uri }, opts);
    this.uris.add(uri);
  }

  async unsubscribe(client: Client, uri: string, opts: RequestOpts): Promise<void> {
    // Forgotten first: from now on nothing about it is relayed, whatever the server answers.
    const held = this.uris.delete(uri);
    if (!offersSubscriptions(client)) {
      if (held) return;
      throw this.unsupported();
    }
    await client.unsubscribeResource({ uri }, opts);
  }

  private unsupported(): Error {
    return unsupported(
      `${this.target()} does not offer resource subscriptions (its initialize answer has no resources.subscribe capability)`,
    );
  }
}
