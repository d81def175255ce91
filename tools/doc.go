// Package tools owns the tool contract ([Tool]), the [Registry] of built-in
// tools, and the validation gateway ([Runner]) that every model tool call
// passes through: parse, registered tool, JSON-schema validation, mode check,
// execution, result checks.
//
// It defines the small interfaces it needs from the editor side where it
// consumes them: [Workspace] (reads that prefer open buffers), [EditProposer]
// (file changes become proposals the user approves) and [FindingSink]
// (review findings). The lspserver package implements them.
//
// Tool failures are [Result] values with IsError set, never Go errors; a Go
// error from a tool means broken infrastructure (a cancelled context, a
// closed connection).
//
// It must not import agent, lspserver, LSP protocol types or the OpenAI SDK.
package tools
