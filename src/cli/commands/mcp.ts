import type { Command } from "commander";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import type { RecallGraph } from "../../library/open-recallgraph.js";
import { NamespaceSchema } from "../../memory/entry.js";
import type { CallerBinding } from "../../mcp/http.js";
import { readGlobalOptions, type GlobalOptions } from "../global-options.js";
import { parseOptionValues } from "../option-values.js";
import { printNote } from "../terminal-output.js";

const McpOptionsSchema = z.object({
  namespace: NamespaceSchema.optional(),
  http: z.boolean().default(false),
  port: z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a port number (0 picks a free one)")
    .transform(Number)
    .pipe(z.number().int().max(65535, "must be at most 65535")),
  host: z.string().trim().min(1, "must not be empty"),
});
type McpOptions = z.output<typeof McpOptionsSchema>;

/** Listed here rather than imported from mcp/, which loads the SDK: `--help` stays fast. */
const DEFAULT_PORT = 3917;
const DEFAULT_HOST = "127.0.0.1";

/** What both transports return: a server running until the client goes or `stop` is called. */
interface Running {
  stopped: Promise<void>;
  stop(): Promise<void>;
}

export function register(program: Command): void {
  program
    .command("mcp")
    .description("serve the memory tools (recall, save, forget, list) to MCP clients, over stdio or HTTP")
    .option("-n, --namespace <ns>", "whose memories (required over stdio; over --http only without RECALLGRAPH_API_KEYS)")
    .option("--http", "serve Streamable HTTP instead of stdio; callers authenticate with RECALLGRAPH_API_KEYS")
    .option("--port <n>", "HTTP port", String(DEFAULT_PORT))
    .option("--host <address>", "HTTP address to listen on", DEFAULT_HOST)
    .addHelpText(
      "after",
      `
Over stdio the client starts the server and every tool acts on --namespace. Over HTTP each caller
sends "Authorization: Bearer <token>"; the token's identity in RECALLGRAPH_API_KEYS is their namespace.

Examples:
  recallgraph mcp --namespace me
  RECALLGRAPH_API_KEYS="tok-alice-0001:alice,tok-bob-00002:bob" recallgraph mcp --http --port 3917`,
    )
    .action(async (rawOptions: unknown, command: Command) =>
      runMcp(parseOptionValues(McpOptionsSchema, rawOptions), readGlobalOptions(command), program.version() ?? "0.0.0"),
    );
}

/** What the server binds tools to: the callers' keys or one namespace over HTTP, `--namespace` over stdio. */
type Serving = { transport: "http"; binding: CallerBinding } | { transport: "stdio"; namespace: string };

async function runMcp(options: McpOptions, globals: GlobalOptions, version: string): Promise<void> {
  // Decided before the store is opened: a server that cannot bind its callers should not start at all.
  const serving = await servingFor(options);
  const memory = await openMemory(globals);
  try {
    const running = serving.transport === "http" ? await startHttp(memory, serving.binding, options, version) : await startStdio(memory, serving.namespace, version);
    await untilStopped(running);
  } finally {
    await memory.close();
  }
}

async function servingFor(options: McpOptions): Promise<Serving> {
  if (options.http) {
    const [{ accessPolicyFromEnv }, { httpBinding }] = await Promise.all([import("../../library/access-policy.js"), import("../../mcp/http.js")]);
    return { transport: "http", binding: httpBinding(accessPolicyFromEnv(), options.namespace) };
  }
  if (options.namespace === undefined) throw new ValidationError("--namespace", "required over stdio: the namespace every tool acts on");
  return { transport: "stdio", namespace: options.namespace };
}

/** Store, embedder and model the way the other commands open them, read-write (a new store is created); `close` closes store and embedder. */
async function openMemory(globals: GlobalOptions): Promise<RecallGraph> {
  const [{ openForWriting }, { openRecallGraph }] = await Promise.all([import("../open-dependencies.js"), import("../../library/open-recallgraph.js")]);
  const opened = await openForWriting(globals);
  const memory = await openRecallGraph({ store: opened.store, embedder: opened.embedder, model: opened.model ?? null });
  // Given an embedder, openRecallGraph leaves it open; these were opened here, so close both.
  return { ...memory, close: opened.close };
}

async function startStdio(memory: RecallGraph, namespace: string, version: string): Promise<Running> {
  const { startStdioServer } = await import("../../mcp/stdio.js");
  const running = await startStdioServer({ memory, namespace }, version);
  printNote(`recallgraph mcp: serving namespace "${namespace}" over stdio`);
  return running;
}

async function startHttp(memory: RecallGraph, binding: CallerBinding, options: McpOptions, version: string): Promise<Running> {
  const { isLoopback, startHttpServer } = await import("../../mcp/http.js");
  printNote(
    binding.kind === "keys"
      ? `recallgraph mcp: callers authenticate with a bearer token from RECALLGRAPH_API_KEYS (${new Set(binding.policy.keys.map((key) => key.identity)).size} identities); each acts on their own namespace`
      : `recallgraph mcp: RECALLGRAPH_API_KEYS is not set: no authentication, every caller acts on namespace "${binding.namespace}" (for local use only)`,
  );
  if (binding.kind === "fixed" && !isLoopback(options.host)) {
    printNote(`recallgraph mcp: warning: --host ${options.host} is not a loopback address: anyone who can reach it can read and write namespace "${binding.namespace}"`);
  }
  const running = await startHttpServer({ memory, binding, host: options.host, port: options.port, version });
  // Last, and in this form: it is the line that tells a supervisor (or a test) the server is ready.
  printNote(`recallgraph mcp: listening on ${running.url}`);
  return running;
}

/** Runs until the client goes (stdio) or the process is told to stop, then lets the store be closed cleanly. */
async function untilStopped(running: Running): Promise<void> {
  const stop = () => void running.stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await running.stopped;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
