// Package acp is agentls's Agent Client Protocol front-end: `agentls acp`
// speaks ACP (JSON-RPC over stdio, agentclientprotocol.com) to Zed,
// JetBrains IDEs, Neovim plugins, Emacs agent-shell and acpx, on
// github.com/coder/acp-go-sdk, whose types and connection it uses for
// every message (this package is the one importer of the SDK:
// cmd/agentls/deps_test.go).
//
// Requirement E20 (../shared/DESIGN.md), as this package meets it:
//
//	E20 ACP front-end: `agentls acp` speaks the Agent Client Protocol
//	over stdio with the same engine, gateway, sandbox and sessions as
//	`serve`: plan/review/execute are session modes (plan and review
//	read-only as in LSP: agent/mode.go decides the tools), the run
//	streams session/updates (the model's text, every tool call with its
//	kind, title, locations, status and output, the plan's entries), one
//	session/request_permission per hunk with its diff (and per command,
//	with the command and its sandbox note; "allow always" only where the
//	policy allows it, never for control files), refused and stale edits
//	reported truthfully to the client and the model, session/cancel stops
//	the run and its commands, session/load continues a session of our
//	store (started by exec, serve or acp) and replays its history, and
//	files are read and written through the client where it offers
//	fs/read_text_file and fs/write_text_file (the stale-content check
//	still applies), else atomically on disk.
//
// It owns the translation between ACP and one run, and nothing of the
// run itself: a prompt becomes the options of package agentrun (the same
// run `serve` uses: session, progress, gateway, hooks, MCP, checkpoints),
// and the run reaches the client through the interfaces agentrun and
// tools consume, implemented here:
//
//   - agent.go: the acp.Agent (initialize, session/new, session/load,
//     session/set_mode, session/cancel) and [Serve];
//   - prompt.go: session/prompt: the run's options, its outcome as a stop
//     reason, the plan entries of a plan;
//   - progress.go, toolcall.go: agentrun.Progress: events as
//     session/updates; observe.go: the gateway's PreToolUse hook step
//     gives each tool call its title and locations before it asks or runs;
//   - approver.go: tools.Approver as session/request_permission;
//   - propose.go, hunks.go: agentrun.Proposer: one permission per hunk,
//     the accepted hunks landed after a stale check, through the client or
//     sandbox.Root.WriteFileAtomic;
//   - workspace.go, findings.go: tools.Workspace (the client's buffers
//     first) and tools.FindingSink (findings as tool-call locations);
//   - replay.go: the history of a loaded session as session/updates;
//     mode.go: the mode a client set, kept next to the session so that a
//     later process loads the session in it.
//
// It imports lspserver/agentrun, agent, tools and sandbox, never the LSP
// server (package lspserver) or go.lsp.dev: the two front-ends share the
// run, not each other. The hunk split is the one both use, tools.Hunks
// (line hunks from go-udiff, adjacent edits merged).
//
// Commands never go to the client's terminal: they run in our sandbox,
// and their output is the tool call's content.
package acp
