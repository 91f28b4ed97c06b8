/**
 * The Prometheus text exposition (format 0.0.4) of the gateway's metrics: counters, gauges and
 * histograms with labels, in a registry of their own, written as prom-client writes them, to the byte
 * (tests/gateway/exposition.test.ts runs both on the same random work and compares the text).
 *
 * Why not prom-client itself: the gateway uses only these three types' plainest features, and
 * loading prom-client (its cluster aggregator, the OpenTelemetry API for exemplars, a pushgateway
 * client with https and zlib) added ~9 MiB to the resident memory of every `serve --http`, the
 * figure the gateway is compared on with the gateways users pick instead (bench/peers.mjs).
 *
 * One difference, on purpose: a series is found by its label values length-prefixed, so two label
 * sets never share a series (prom-client joins `name:value` pairs with commas, which a tool name
 * holding ",outcome:" could make collide).
 */

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;
type Kind = "counter" | "gauge" | "histogram";

/** A family's series, by their label values (see the module comment), in the order first seen. */
function seriesKey(names: readonly string[], labels: Labels): string {
  let key = "";
  for (const name of names) {
    const v = labels[name] ?? "";
    key += `${v.length}:${v}`;
  }
  return key;
}

const escapeText = (s: string) => s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeValue = (s: string) => escapeText(s).replace(/"/g, '\\"');

/** A sample's value as the exposition writes it (prom-client's spelling of NaN included). */
function valueText(v: number): string {
  if (Number.isNaN(v)) return "Nan";
  if (!Number.isFinite(v)) return v < 0 ? "-Inf" : "+Inf";
  return `${v}`;
}

function labelText(labels: Labels): string {
  let out = "";
  for (const name in labels) out += `${out ? "," : ""}${name}="${escapeValue(labels[name])}"`;
  return out;
}

abstract class Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly kind: Kind,
    protected readonly labelNames: readonly string[],
  ) {}

  render(): string {
    this.collect();
    const name = escapeText(this.name);
    const lines = [`# HELP ${name} ${escapeText(this.help)}`, `# TYPE ${name} ${this.kind}`];
    this.samples(lines);
    return lines.join("\n");
  }

  /** Fills the family just before it is rendered (a figure read from elsewhere at scrape time). */
  protected collect(): void {}

  protected abstract samples(lines: string[]): void;
}

/** A counter or a gauge: one number per label set; with no labels, one series at 0 from the start. */
class Scalar extends Family {
  private series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    name: string,
    help: string,
    kind: "counter" | "gauge",
    labelNames: readonly string[],
    private readonly fill?: (self: Scalar) => void,
  ) {
    super(name, help, kind, labelNames);
    this.reset();
  }

  protected override collect(): void {
    this.fill?.(this);
  }

  /** Forgets every series (a figure recomputed at each scrape starts here). */
  reset(): void {
    this.series = new Map();
    if (this.labelNames.length === 0) this.series.set("", { labels: {}, value: 0 });
  }

  protected add(labels: Labels, value: number, replace: boolean): void {
    const key = seriesKey(this.labelNames, labels);
    const s = this.series.get(key);
    if (s && !replace) s.value += value;
    else if (s) s.value = value;
    else this.series.set(key, { labels, value });
  }

  protected samples(lines: string[]): void {
    const name = escapeText(this.name);
    for (const { labels, value } of this.series.values()) {
      const l = labelText(labels);
      lines.push(`${name}${l ? `{${l}}` : ""} ${valueText(value)}`);
    }
  }
}

export class Counter extends Scalar {
  constructor(name: string, help: string, labelNames: readonly string[], collect?: (self: Counter) => void) {
    super(name, help, "counter", labelNames, collect as ((self: Scalar) => void) | undefined);
  }

  /** Adds `by` (default 1); a counter only goes up. */
  inc(labels: Labels, by = 1): void {
    if (by < 0) throw new Error("It is not possible to decrease a counter");
    this.add(labels, by, false);
  }
}

export class Gauge extends Scalar {
  constructor(name: string, help: string, labelNames: readonly string[], collect?: (self: Gauge) => void) {
    super(name, help, "gauge", labelNames, collect as ((self: Scalar) => void) | undefined);
  }

  set(labels: Labels, value: number): void {
    this.add(labels, value, true);
  }
}

export class Histogram extends Family {
  private readonly series = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, "histogram", labelNames);
    if (labelNames.length === 0) this.series.set("", this.empty({}));
  }

  private empty(labels: Labels) {
    return { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
  }

  observe(labels: Labels, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const key = seriesKey(this.labelNames, labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = this.empty(labels)));
    s.sum += value;
    s.count += 1;
    // The first bucket whose bound holds the value; above the last bound only +Inf counts it.
    const i = this.bounds.findIndex((b) => value <= b);
    if (i >= 0) s.buckets[i] += 1;
  }

  protected samples(lines: string[]): void {
    const name = escapeText(this.name);
    for (const { labels, buckets, sum, count } of this.series.values()) {
      const l = labelText(labels);
      const tail = l ? `,${l}` : "";
      let acc = 0;
      this.bounds.forEach((bound, i) => {
        acc += buckets[i];
        lines.push(`${name}_bucket{le="${bound}"${tail}} ${valueText(acc)}`);
      });
      lines.push(`${name}_bucket{le="+Inf"${tail}} ${valueText(count)}`);
      lines.push(`${name}_sum${l ? `{${l}}` : ""} ${valueText(sum)}`);
      lines.push(`${name}_count${l ? `{${l}}` : ""} ${valueText(count)}`);
    }
  }
}

/** The families of one server, rendered in the order they were registered. */
export class Registry {
  private readonly families: Family[] = [];

  register<F extends Family>(family: F): F {
    if (this.families.some((f) => f.name === family.name))
      throw new Error(`A metric with the name ${family.name} has already been registered.`);
    this.families.push(family);
    return family;
  }

  render(): string {
    return `${this.families.map((f) => f.render()).join("\n\n")}\n`;
  }
}
