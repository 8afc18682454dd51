/**
 * Running `recallgraph mcp` the way an MCP client does: a child process of the installed command's
 * script (the build in dist/, as test/cli runs it), driven by the SDK's own client. The hash embedder
 * keeps every run offline and model-free.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assertBuildIsCurrent, CLI_COMMAND } from "../cli/helpers.js";

/** `node bin/recallgraph.js --db <db> --embedder hash mcp ...args`, as a command and its arguments. */
export function mcpCommand(db: string, args: readonly string[]): { command: string; args: string[] } {
  assertBuildIsCurrent();
  return { command: process.execPath, args: [CLI_COMMAND, "--db", db, "--embedder", "hash", "mcp", ...args] };
}

/** The environment without recallgraph's, OpenAI's or Qdrant's variables (the tests decide with flags), plus `extra`. */
export function testEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(RECALLGRAPH_|OPENAI_|QDRANT_)/.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

type ToolAnswer = Awaited<ReturnType<Client["callTool"]>>;

/** A tool call's text and whether it was a tool error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  return readAnswer(await client.callTool({ name, arguments: args }));
}

function readAnswer(answer: ToolAnswer): { text: string; isError: boolean } {
  const content = Array.isArray(answer.content) ? answer.content : [];
  const text = content.map((part: { type: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : "")).join("\n");
  return { text, isError: answer.isError === true };
}

/** The id a save_memory answer names ("Saved memory <id>."). */
export function savedId(text: string): string {
  const id = /^Saved memory (\S+)\.$/.exec(text)?.[1];
  if (id === undefined) throw new Error(`not a save answer: ${text}`);
  return id;
}

export interface HttpChild {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  kill: () => Promise<void>;
}

/** Starts `recallgraph mcp --http --port 0 ...` and waits (at most `timeoutMs`) for the URL it listens on. */
export async function startHttpChild(db: string, args: readonly string[], env: Record<string, string>, timeoutMs = 20_000): Promise<HttpChild> {
  const { command, args: argv } = mcpCommand(db, ["--http", "--port", "0", ...args]);
  const child = spawn(command, argv, { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening; stderr:\n${stderr}`));
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return { url, child, stderr: () => stderr, kill };
}
