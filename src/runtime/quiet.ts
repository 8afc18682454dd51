import type { CallbackManager } from "@langchain/core/callbacks/manager";
import { Runnable, RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { nextTurn } from "../core/next-turn.js";

/**
 * Nodes and routes that cost nothing extra when nothing listens to the run, and behave exactly as
 * LangGraph's own wrappers when something does.
 *
 * A node given to `addNode` as a function is wrapped by LangGraph in a `RunnableCallable`, a route given
 * to `addConditionalEdges` in LangChain's `RunnableLambda`. Each call of either runs its function inside
 * `AsyncLocalStorageProviderSingleton.runWithConfig`, which builds a langsmith `RunTree` even when
 * nothing traces (@langchain/core 1.4.0, singletons/async_local_storage: `new RunTree({ tracingEnabled:
 * false })`, 36-64 us each here: environment reads, a uuid7, thirty property definitions), and merges
 * the run's configuration again; the lambda also opens a callback manager for a run nobody receives.
 * A retrieval calls its nodes and routes a dozen times per question.
 *
 * Here a run is "listened to" when its configuration carries a callback handler: a LangSmith tracer
 * (given, or added by LangChain when LANGSMITH_TRACING / LANGCHAIN_TRACING_V2 is set), the server's
 * message stream, `streamEvents`, a user's handler. Then the node runs inside `runWithConfig` as
 * LangGraph's wrapper runs it (the model calls inside it are traced as its children and stream their
 * tokens), and the route runs as the same `RunnableLambda`, so a trace shows the same runs as before.
 * Otherwise the function is called directly, with the configuration LangGraph hands the task.
 *
 * What a node loses when nothing listens: LangGraph's ambient helpers that read the configuration from
 * async-local storage (`getConfig()`, `interrupt()`, `getWriter()`, `getStore()`) and child runnables
 * that would inherit it implicitly. The retrieval graph's nodes use none of them: they read their
 * configuration from their second argument and hand model calls their signal explicitly.
 */
export function listened(config: RunnableConfig | undefined): boolean {
  const callbacks = config?.callbacks;
  if (callbacks === undefined || callbacks === null) return false;
  if (Array.isArray(callbacks)) return callbacks.length > 0;
  const manager = callbacks as CallbackManager;
  return manager.handlers.length > 0 || manager.inheritableHandlers.length > 0;
}

type Body<Input, Output> = (input: Input, config?: RunnableConfig) => Promise<Output> | Output;

class Quiet<Input, Output> extends Runnable<Input, Output> {
  lc_namespace = ["recallgraph", "graph"];

  constructor(
    name: string,
    private readonly body: Body<Input, Output>,
    private readonly whenListened: (input: Input, config: RunnableConfig) => Promise<Output>,
  ) {
    super();
    this.name = name;
  }

  override async invoke(input: Input, config?: RunnableConfig): Promise<Output> {
    // Each node starts on a turn of its own (nextTurn says why): overlapping runs then share the event
    // loop with the host's timers and sockets node by node, not a whole run at a time.
    await nextTurn();
    return config && listened(config) ? this.whenListened(input, config) : this.body(input, config);
  }
}

/** A node for `addNode`: see above; it also starts on a turn of the event loop of its own. */
export function quietNode<Input, Output>(name: string, body: Body<Input, Output>): Runnable<Input, Output> {
  return new Quiet(name, body, (input, config) => AsyncLocalStorageProviderSingleton.runWithConfig(config, async () => body(input, config)));
}

/** A route for `addConditionalEdges`: see above. */
export function quietRoute<Input, Output>(body: (input: Input) => Output): Runnable<Input, Output> {
  const lambda = RunnableLambda.from<Input, Output>(body);
  return new Quiet(body.name, async (input: Input) => body(input), (input, config) => lambda.invoke(input, config));
}
