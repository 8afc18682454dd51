/**
 * The MCP server over stdio: a client (a desktop assistant, an IDE) starts `recallgraph mcp` and speaks
 * JSON-RPC on its stdin and stdout. One caller, one namespace, the one `--namespace` names.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ActionContext } from "../library/memory-actions.js";
import { createMemoryServer } from "./memory-server.js";

export interface RunningStdioServer {
  /** Resolves once the client has gone (stdin ended) or `stop` was called. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

export async function startStdioServer(context: ActionContext, version: string): Promise<RunningStdioServer> {
  keepStdoutForProtocol();
  const server = createMemoryServer(context, version);
  const stopped = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  // The SDK's transport does not watch for the end of stdin; without this a client that closes the
  // pipe would leave the process waiting with the store open.
  process.stdin.once("end", () => void server.close());
  const stop = async () => {
    await server.close();
    await stopped;
  };
  return { stopped, stop };
}

/**
 * stdout carries the protocol, so one stray line would break it: dependencies that print with
 * console.log (TensorFlow.js, which the default embedder loads, does) are sent to stderr instead.
 */
function keepStdoutForProtocol(): void {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
