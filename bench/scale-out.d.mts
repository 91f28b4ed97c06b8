// Types of bench/scale-out.mjs for the TypeScript test that drives it.
import type { ChildProcess } from "node:child_process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

export const WRITE_TOOL: string;
export const KEY_META: string;
export const CALL_TIMEOUT_MS: number;
export interface Replica {
  dir: string;
  port: number;
  proc: ChildProcess;
  stderr(): string;
  alive(): boolean;
}
export interface Balancer {
  url: string;
  base: string;
  proc: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}
export interface Cluster {
  table: string;
  token: string;
  replicas: Replica[];
  lb: Balancer;
  dir: string;
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}
export interface KillRunResult {
  run: string;
  acked: number;
  ackedAtKill: number;
  afterKill: number;
  rows: number;
  distinct: number;
  duplicates: number;
  lost: string[];
  attempts: number;
  failures: number;
  timeouts: number;
  longestAttemptMs: number;
  longestWriteMs: number;
  errors: Record<string, number>;
}
export function freePort(): Promise<number>;
export type Mode = "stateless" | "stateful" | "shared";
export function haproxyConfig(mode: Mode, lbPort: number, ports: number[]): string;
export function connect(url: string, token: string): Promise<Client>;
export function stopProc(proc: ChildProcess, signal?: NodeJS.Signals): Promise<void>;
export function startCluster(opts: {
  pgUrl: string;
  haproxy: string;
  mode: Mode;
  n?: number;
  token?: string;
  /** Added to every replica's connectors.json: mcpConnectors, and gateway keys (state, clients, expose). */
  extra?: { mcpConnectors?: Record<string, unknown>; gateway?: Record<string, unknown> };
}): Promise<Cluster>;
export function killRun(
  cluster: Cluster,
  opts: {
    pgUrl: string;
    run: string;
    clients?: number;
    perClient?: number;
    killAfter?: number;
    victim?: number;
    reconnectOn404?: boolean;
  },
): Promise<KillRunResult>;
