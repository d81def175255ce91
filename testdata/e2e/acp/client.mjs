// An independent ACP client for agentls's e2e test: the official
// TypeScript SDK (@agentclientprotocol/sdk) starts `agentls acp`, runs
// plan then execute in one session, answers each permission by what it
// shows (the first hunk of main.go yes, the second no, the command no, the
// control file no after checking its warning), then approves a long
// command and cancels the prompt while it runs. It writes what it saw to
// the file named by AGENTLS_E2E_RESULT; cmd/agentls/e2e_acp_test.go
// checks it and the disk.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const bin = process.env.AGENTLS_E2E_BIN;
const ws = process.env.AGENTLS_E2E_WS;
const child = spawn(bin, ["acp", "--root", ws], { cwd: ws, stdio: ["pipe", "pipe", "inherit"] });

const seen = { updates: [], permissions: [], stopReasons: [], errors: [] };
let prompt = 0;
let cancelSent = false;
let ctxRef = null;
let sessionId = null;

function answer(params) {
  const title = params.toolCall.title ?? "";
  const text = (params.toolCall.content ?? []).map((c) => c.content?.text ?? "").join("\n");
  const ids = params.options.map((o) => o.optionId);
  seen.permissions.push({ prompt, title, text, options: ids, diff: (params.toolCall.content ?? []).find((c) => c.type === "diff") ?? null });
  let pick = "reject_once";
  if (title.includes("main.go") && title.includes("hunk 1 of 2")) pick = "allow_once";
  if (text.includes("sleep 30.5")) pick = "allow_once";
  return { outcome: { outcome: "selected", optionId: pick } };
}

function onUpdate(params) {
  const u = params.update;
  seen.updates.push({ prompt, update: u });
  if (prompt === 3 && !cancelSent && u.sessionUpdate === "tool_call_update" && u.status === "in_progress") {
    cancelSent = true;
    ctxRef.notify(acp.methods.agent.session.cancel, { sessionId }).catch((e) => seen.errors.push(String(e)));
  }
}

const app = acp
  .client({ name: "agentls-e2e" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => answer(params))
  .onNotification(acp.methods.client.session.update, ({ params }) => onUpdate(params));

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
try {
  await app.connectWith(stream, async (ctx) => {
    ctxRef = ctx;
    const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    seen.loadSession = init.agentCapabilities?.loadSession === true;
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
    sessionId = s.sessionId;
    seen.sessionId = sessionId;
    seen.modes = s.modes;
    const run = async (mode, text) => {
      await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: mode });
      prompt++;
      const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      seen.stopReasons.push(r.stopReason);
    };
    await run("plan", "How should the greeting change?");
    await run("execute", "Carry out the plan.");
    await run("execute", "Now wait for a while.");
  });
} catch (e) {
  seen.errors.push(String(e?.stack ?? e));
}
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
writeFileSync(process.env.AGENTLS_E2E_RESULT, JSON.stringify(seen, null, 1));
