/**
 * KeepAliveHttpClient against loopback servers that misbehave on purpose: connections are reused and
 * Nagle's algorithm is off; a server that stalls, before its answer or in the middle of its body,
 * gives a RequestTimeoutError; an answer over the cap a ResponseTooLargeError with its connection
 * closed; the caller's abort its own reason; a kept-alive connection the server dropped is retried
 * once, for idempotent requests only. Nothing here is timed: each case asserts what came back.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Socket, type AddressInfo } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import { RequestTimeoutError, ResponseTooLargeError } from "../../src/core/errors.js";
import { KeepAliveHttpClient, type HttpClientOptions } from "../../src/core/http-client.js";

const CAP = 64 * 1024;

describe("KeepAliveHttpClient", () => {
  let server: Server;
  let baseUrl = "";
  let connections = 0;
  /** Requests seen per path, in order. */
  const seen: string[] = [];
  /** The server side of each connection closed so far. */
  let closedConnections = 0;
  const clients: KeepAliveHttpClient[] = [];

  const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
    "/prefix/echo": (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ method: request.method, type: request.headers["content-type"] ?? null, body: Buffer.concat(chunks).toString("utf8") }));
      });
    },
    "/prefix/silent": () => undefined,
    "/prefix/half": (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"started":');
    },
    "/prefix/declared-large": (_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": String(CAP + 1) });
      response.write("{");
    },
    "/prefix/endless": (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(16 * 1024, "a");
      const pump = () => {
        while (!response.destroyed) if (!response.write(chunk)) return void response.once("drain", pump);
      };
      pump();
    },
    "/prefix/status": (_request, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end('{"status":{"error":"Not found"}}');
    },
  };
  /** How many requests of /prefix/drop to answer by dropping the connection. */
  let drops = 0;

  const client = (options: Partial<HttpClientOptions> = {}) => {
    const made = new KeepAliveHttpClient({ baseUrl: `${baseUrl}/prefix`, timeoutMs: 5_000, maxResponseBytes: CAP, maxSockets: 4, ...options });
    clients.push(made);
    return made;
  };

  before(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      seen.push(path);
      if (path === "/prefix/drop") {
        request.resume();
        if (drops > 0) {
          drops--;
          return void request.socket.destroy();
        }
        response.writeHead(200, { "content-type": "application/json" });
        return void response.end('{"ok":true}');
      }
      const route = routes[path];
      if (route) return route(request, response);
      response.writeHead(500);
      response.end();
    });
    server.on("connection", (socket: Socket) => {
      connections++;
      socket.on("close", () => closedConnections++);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen.length = 0;
    drops = 0;
  });
  after(async () => {
    for (const made of clients) made.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends JSON under the base URL's prefix and reuses one connection for requests in a row", async () => {
    const http = client();
    const before = connections;
    for (let i = 0; i < 5; i++) {
      const answer = await http.request({ method: "POST", path: "/echo", json: `{"n":${i}}`, idempotent: true });
      assert.equal(answer.status, 200);
      assert.deepEqual(JSON.parse(answer.body.toString("utf8")), { method: "POST", type: "application/json", body: `{"n":${i}}` });
    }
    const get = await http.request({ method: "GET", path: "/echo", idempotent: true });
    assert.deepEqual(JSON.parse(get.body.toString("utf8")), { method: "GET", type: null, body: "" });
    assert.equal(connections - before, 1, "six requests, one connection");
  });

  it("turns Nagle's algorithm off on its connections", async (t) => {
    const noDelay = t.mock.method(Socket.prototype, "setNoDelay");
    await client().request({ method: "GET", path: "/echo", idempotent: true });
    assert.ok(noDelay.mock.calls.some((call) => call.arguments[0] === true), "setNoDelay(true) on the request's socket");
  });

  it("returns an error status as an answer, for the caller to read", async () => {
    const answer = await client().request({ method: "GET", path: "/status", idempotent: true });
    assert.equal(answer.status, 404);
    assert.match(answer.body.toString("utf8"), /Not found/);
  });

  it("gives a RequestTimeoutError when the server never answers, and when it stops in the middle of the body", async () => {
    const http = client({ timeoutMs: 200 });
    for (const path of ["/silent", "/half"]) {
      await assert.rejects(http.request({ method: "POST", path, json: "{}", idempotent: true }), (error: unknown) => {
        assert.ok(error instanceof RequestTimeoutError, `${path}: ${String(error)}`);
        assert.equal(error.code, "request_timeout");
        assert.match(error.message, new RegExp(`${path}.*200 ms`));
        return true;
      });
    }
  });

  it("cuts off an answer over the cap, declared or streamed, and closes its connection", async () => {
    const http = client();
    for (const path of ["/declared-large", "/endless"]) {
      const closedBefore = closedConnections;
      await assert.rejects(http.request({ method: "GET", path, idempotent: true }), (error: unknown) => {
        assert.ok(error instanceof ResponseTooLargeError, `${path}: ${String(error)}`);
        assert.match(error.message, new RegExp(`larger than ${CAP} bytes`));
        return true;
      });
      await waitFor(() => closedConnections > closedBefore);
    }
  });

  it("ends the request with the caller's abort reason", async () => {
    const controller = new AbortController();
    const reason = new Error("the run was cancelled");
    const pending = client().request({ method: "GET", path: "/silent", idempotent: true, signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await assert.rejects(pending, (error: unknown) => error === reason);
    const aborted = new AbortController();
    aborted.abort(reason);
    await assert.rejects(client().request({ method: "GET", path: "/echo", idempotent: true, signal: aborted.signal }), (error: unknown) => error === reason);
  });

  it("sends an idempotent request again, once, when the server drops a kept-alive connection; any other fails", async () => {
    const http = client({ maxSockets: 1 });
    await http.request({ method: "GET", path: "/drop", idempotent: true });
    drops = 1;
    const answer = await http.request({ method: "GET", path: "/drop", idempotent: true });
    assert.equal(answer.status, 200);
    assert.deepEqual(seen, ["/prefix/drop", "/prefix/drop", "/prefix/drop"], "the dropped request was sent again");

    seen.length = 0;
    drops = 1;
    await assert.rejects(http.request({ method: "POST", path: "/drop", json: "{}", idempotent: false }), (error: unknown) => {
      assert.equal((error as NodeJS.ErrnoException).code, "ECONNRESET");
      return true;
    });
    assert.deepEqual(seen, ["/prefix/drop"], "a request that is not idempotent is sent once");

    seen.length = 0;
    await http.request({ method: "GET", path: "/drop", idempotent: true });
    drops = 2;
    await assert.rejects(http.request({ method: "GET", path: "/drop", idempotent: true }), (error: unknown) => {
      assert.equal((error as NodeJS.ErrnoException).code, "ECONNRESET");
      return true;
    });
    assert.equal(seen.length, 3, "one answered request, then one dropped and its one retry, dropped too");
  });

  it("refuses requests after close", async () => {
    const http = client();
    await http.request({ method: "GET", path: "/echo", idempotent: true });
    http.close();
    await assert.rejects(http.request({ method: "GET", path: "/echo", idempotent: true }), /the HTTP client is closed/);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    assert.ok(tries < 100, "in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
