import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AccessDeniedError, ValidationError } from "../../src/core/errors.js";
import { accessPolicyFromEnv, identityForToken, refusedNamespace } from "../../src/library/access-policy.js";
import { namespaceGuard } from "../../src/server/access.js";

const policy = accessPolicyFromEnv({ RECALLGRAPH_API_KEYS: " tok-alice-1:alice , tok-bob-22:bob ", RECALLGRAPH_SHARED_NAMESPACES: "team, handbook" });
const asUser = (identity: string) => ({ configurable: { langgraph_auth_user: { identity } } });

describe("namespace access on a deployed server", () => {
  it("maps each token to its identity and nothing else", () => {
    assert.equal(identityForToken(policy, "tok-alice-1"), "alice");
    assert.equal(identityForToken(policy, "tok-bob-22"), "bob");
    assert.equal(identityForToken(policy, "tok-alice-"), undefined);
    assert.equal(identityForToken(policy, ""), undefined);
  });

  it("lets an identity read and write its own namespace and those under it, and only read shared ones", () => {
    assert.equal(refusedNamespace(policy, "alice", { namespaces: ["alice", "alice/notes"], mode: "write" }), undefined);
    assert.equal(refusedNamespace(policy, "alice", { namespaces: ["team", "handbook/2026", "alice"], mode: "read" }), undefined);
    assert.equal(refusedNamespace(policy, "alice", { namespaces: ["team"], mode: "write" }), "team");
    assert.equal(refusedNamespace(policy, "alice", { namespaces: ["alice", "bob"], mode: "read" }), "bob");
    assert.equal(refusedNamespace(policy, "alice", { namespaces: ["alicebob"], mode: "read" }), "alicebob", "a prefix is not a parent");
    assert.equal(refusedNamespace(policy, "alice", { namespaces: ["teamwork"], mode: "read" }), "teamwork");
  });

  it("guards the served graphs: a foreign namespace or a missing caller is refused", () => {
    const guard = namespaceGuard(policy);
    assert.doesNotThrow(() => guard({ namespaces: ["alice"], mode: "read" }, asUser("alice")));
    assert.throws(() => guard({ namespaces: ["bob"], mode: "read" }, asUser("alice")), AccessDeniedError);
    assert.throws(() => guard({ namespaces: ["alice"], mode: "read" }, undefined), AccessDeniedError, "no caller on a secured server");
    assert.throws(() => guard({ namespaces: ["alice"], mode: "read" }, { configurable: { langgraph_auth_user: "alice" } }), AccessDeniedError);
  });

  it("leaves an open server (no keys) open", () => {
    const open = accessPolicyFromEnv({});
    assert.equal(open.secured, false);
    assert.doesNotThrow(() => namespaceGuard(open)({ namespaces: ["anyone"], mode: "write" }, undefined));
  });

  it("refuses malformed keys naming the variable, never echoing a token", () => {
    for (const keys of ["no-colon-here", "short:alice", "tok-alice-1:", "tok-alice-1:a/b", "tok-alice-1:alice,tok-alice-1:bob"]) {
      assert.throws(
        () => accessPolicyFromEnv({ RECALLGRAPH_API_KEYS: keys }),
        (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_API_KEYS" && !error.message.includes("tok-alice-1"),
        keys,
      );
    }
  });
});
