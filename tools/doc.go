// Package tools owns the tool contract ([Tool], made from a typed handler
// by [New]; [Env] and the per-call [Call]), the [Registry], and the
// validation gateway ([Gateway], built by [NewGateway]) that every model
// tool call passes through: parse, registered tool, JSON-schema
// validation, mode check, execution, result checks. The built-in tools
// are its clients in tools/builtin, on this exported contract alone, as
// MCP tools are in tools/mcp; tools imports neither.
//
// It defines the small interfaces it needs from the editor side where it
// consumes them: [Workspace] (reads that prefer open buffers), [EditProposer]
// (file changes become proposals the user approves) and [FindingSink]
// (review findings). The lspserver package implements them.
//
// Allow / ask / deny is one [Decision], carried in one [Verdict] from a
// tool's check through the policy to the audit log and `agentls vet`.
// Refusals travel inside the package as [*ToolError] values (a sandbox
// policy error becomes one in [PolicyRefusal]) and become the model-facing
// [Result] in one place, [ToolError.Result]. Questions to the user go
// through one [Approver] with one timeout, the policy's
// ([Policy.QuestionTimeout]); whether the policy allowed a change outright
// travels in [FileChange.Preapproved], never in the context.
//
// Tool failures are [Result] values with IsError set, never Go errors; a Go
// error from a tool means broken infrastructure (a cancelled context, a
// closed connection).
//
// It must not import agent, lspserver, LSP protocol types or the OpenAI SDK.
package tools
