/**
 * What each client has done since this serve started, for the status page: calls let in, calls
 * in flight, and refusals by policy and by quota. Kept per client id (the configured ids only:
 * an OAuth caller is counted under the client its token matched, so the table stays as small as
 * connectors.json). The operator is not counted here; the instance rows show all traffic.
 */
export interface ClientUsageRow {
  calls: number;
  inFlight: number;
  refusedByPolicy: number;
  refusedByQuota: number;
}

export class ClientUsage {
  private readonly rows = new Map<string, ClientUsageRow>();
  /** Told of each refusal too (the status page's recent refusals). */
  onRefused: ((id: string, why: "policy" | "quota", what: string) => void) | null = null;

  /** Counts a call let in; the returned function marks it done (once, however often called). */
  begin(id: string): () => void {
    const row = this.row(id);
    row.calls++;
    row.inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      row.inFlight--;
    };
  }

  refused(id: string, why: "policy" | "quota", what: string): void {
    this.onRefused?.(id, why, what);
    const row = this.row(id);
    if (why === "policy") row.refusedByPolicy++;
    else row.refusedByQuota++;
  }

  of(id: string): ClientUsageRow {
    return { ...(this.rows.get(id) ?? { calls: 0, inFlight: 0, refusedByPolicy: 0, refusedByQuota: 0 }) };
  }

  private row(id: string): ClientUsageRow {
    let row = this.rows.get(id);
    if (!row) {
      row = { calls: 0, inFlight: 0, refusedByPolicy: 0, refusedByQuota: 0 };
      this.rows.set(id, row);
    }
    return row;
  }
}
