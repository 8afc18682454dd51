/**
 * The MCP server over one namespace: one tool per memory action (library/memory-actions.ts), with the
 * action's own name, description and argument schema, so the MCP tools and the LangChain tools cannot
 * drift apart. The namespace is bound by whoever builds the server (the `--namespace` flag, or the
 * caller's key over HTTP); no tool argument can name another.
 *
 * The tools are served by handlers on the SDK's underlying server rather than by `registerTool`, which
 * in SDK 1.32 checks arguments itself before the tool runs and answers in its own several-line format.
 * Here the action is the one validator, and its ValidationError, one line naming the field, is what the
 * caller reads.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, ToolSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorMessage, RecallGraphError } from "../core/errors.js";
import { describeError, log } from "../core/log.js";
import { MEMORY_ACTIONS, type ActionContext } from "../library/memory-actions.js";

export const SERVER_NAME = "recallgraph";

/** A new MCP server whose tools act on `context.namespace`. `version` is what the server reports to clients. */
export function createMemoryServer(context: ActionContext, version: string): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version });
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: memoryTools() }));
  server.server.setRequestHandler(CallToolRequestSchema, (request) => callTool(context, request.params.name, request.params.arguments ?? {}));
  return server;
}

let tools: Tool[] | undefined;
/** The tool list, built once: the schemas never change while the process runs. */
function memoryTools(): Tool[] {
  tools ??= MEMORY_ACTIONS.map((action) => ({ name: action.name, description: action.description, inputSchema: inputJsonSchema(action.schema) }));
  return tools;
}

/** The JSON Schema of what a caller may send, as the SDK would write it (draft-07, input side). */
export function inputJsonSchema(schema: z.ZodType): Tool["inputSchema"] {
  return ToolSchema.shape.inputSchema.parse(z.toJSONSchema(schema, { io: "input", target: "draft-7" }));
}

async function callTool(context: ActionContext, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const action = MEMORY_ACTIONS.find((candidate) => candidate.name === name);
  if (action === undefined) return toolError(`unknown tool "${name}" (this server has ${MEMORY_ACTIONS.map((known) => known.name).join(", ")})`);
  try {
    return { content: [{ type: "text", text: await action.run(context, args) }] };
  } catch (error) {
    // Refusals and bad arguments are the caller's to fix; anything else is ours, and worth a log line.
    if (!(error instanceof RecallGraphError) || error.code === "store_failure") log.error("mcp_tool_failed", { tool: name, error: describeError(error) });
    return toolError(errorMessage(error));
  }
}

/** A failure the model can read and act on: one line (zod and sqlite messages may span several), never a stack. */
function toolError(message: string): CallToolResult {
  const text = message.replace(/\s*\n\s*/g, " ").trim() || "the tool failed without a message";
  return { content: [{ type: "text", text }], isError: true };
}
