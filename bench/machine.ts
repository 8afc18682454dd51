import { cpus, totalmem } from "node:os";

/** What the benchmarks ran on, written beside their numbers: cores, CPU model, memory, Node, platform. */
export function machineDescription(): string {
  const cpu = cpus();
  return `${cpu.length} x ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}`;
}
