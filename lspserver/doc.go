// Package lspserver is agentls's language server: one [Server] per
// connection, started by [Serve] over any byte stream (stdio in
// `agentls serve`, a pipe for the headless client and the tests).
//
// It owns:
//
//   - the handler chain over the connection of the sub-package transport
//     (handler.go): notifications run inline on the read loop, in wire
//     order; calls are released to run concurrently; $/cancelRequest
//     reaches a call even while it starts;
//   - the lifecycle: initialize, initialized, shutdown, exit, and the
//     client capabilities agentls acts on (initialize.go);
//   - the document store: the open buffers with their versions, so that a
//     run reads what the user sees, with UTF-16 positions (documents.go,
//     position.go);
//   - the custom workspace/executeCommand commands (execute_command.go),
//     whose wire shapes live in the sub-package command;
//   - runs: one constructor, newRun (run.go), resolves a command
//     (run_resolve.go) and hands it to the sub-package agentrun, which
//     opens its place in its session, loads the conversation and equips it
//     with progress and its gateway, asking the server (frontEnd) for
//     what reaches the user; execute, plan and review run it (run_agent.go)
//     and turn the outcome into the result (run_finish.go); a revert is
//     built by the same constructor (revert.go);
//   - sessions (A11, A16): every run is a run of an agent/session session,
//     continued with its sessionId; commands on one session take their
//     place in line on the read loop, in wire order (session_order.go),
//     and run one after the other (session.go); before a change is
//     proposed its old content is kept (agentrun.Checkpoint), and
//     agentls.revert proposes the restore like any other change
//     (revert.go);
//   - translating a run into LSP: the proposer (propose_*.go) turns edit
//     proposals into workspace/applyEdit with one annotated edit per hunk
//     (propose.go, propose_apply.go, propose_hunks.go, propose_verify.go),
//     refused as stale whenever the file is no longer what the model read,
//     and confirmed by a question first for clients not known to show
//     annotated edits (propose_guard.go, client_trust.go, E14, T17),
//     questions into window/showMessageRequest (approver.go, confirm.go),
//     findings into textDocument/publishDiagnostics (diagnostics.go), the
//     run's events into $/progress and window/logMessage (progress.go);
//   - file events: the fsnotify watch (sub-package watch) and the client's
//     workspace/didChangeWatchedFiles wake pending proposals and reload the
//     policy, which keeps the last good one when an edit breaks it
//     (file_watch.go, policy_reload.go, E10);
//   - the mapping of errors to the wire: spec codes only, and RequestFailed
//     with a data.reason from a closed list (errors.go).
//
// The reply to workspace/applyEdit from our plugins' review (VS Code,
// Neovim, headless: one protocol) may carry the user's answers per hunk
// in an "agentls" member (propose_reason.go, issue 28):
//
//	{"applied": true, "agentls": {"reason": "why the whole change was rejected",
//	  "hunks": [{"index": 1, "reason": "why hunk 1 was rejected"},
//	            {"index": 0, "text": "the replacement the user accepted instead"}]}}
//
// index is N of the hunk's annotation "agentls.N". The model reads a
// reason as user_reason on the rejected hunk (or on the approval_denied
// of the whole change), and a hunk the user edited as "the user changed
// your proposal" with the diff of their change (user_change); what
// landed is verified against the user's text, so it is not stale.
//
// It implements, for one run, the interfaces the tools consume:
// tools.Approver, tools.EditProposer, tools.Workspace and
// tools.FindingSink.
//
// It must not call a model, decide policy or write files. The model comes
// from [Options.NewModel] and is driven by agent.Run; what is allowed, asked
// or denied is decided by tools and sandbox; every change to the workspace
// is proposed to the editor, which applies it or not, and the server only
// reads back what landed. It never prints to stdout (the protocol may be
// there): logs go to [Options.Logger], messages for the user go to the
// client.
//
// LSP types come from go.lsp.dev/protocol v1.0.1 (generated from the 3.18
// metamodel) and are encoded with its union-aware marshaller; they do not
// leave lspserver and its sub-packages. agentls's own shapes are the plain
// structs of package command, encoded with encoding/json.
//
// Sub-packages: transport (JSON-RPC framing that answers a malformed
// frame and reads on, the codec and the connection; it imports nothing of
// ours), agentrun (one agent run for any front-end: session, gateway,
// checkpoints, progress through small interfaces; no LSP types), command (the wire shapes of the custom commands, mirrored
// for the VS Code extension), headless (the built-in client behind
// `agentls plan|review|exec|demo`), watch (the recursive, bounded fsnotify
// watch; the only importer of fsnotify) and lsptest (a fake editor for
// tests). The transcript tests in testdata/transcripts pin whole
// connections, message by message.
package lspserver
