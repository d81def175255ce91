// Package mcp offers the tools of the user's MCP servers to the gateway
// (B6), through github.com/modelcontextprotocol/go-sdk; it is the only
// package that imports the SDK.
//
// [Start] connects to every configured server in parallel, in the
// background, and returns at once (stdio servers are started as
// processes, outside the sandbox, with the scrubbed environment plus the
// env the user configured; streamable-HTTP servers are dialled): only
// [Manager.Tools] and [Manager.Servers] wait for the starts, each bounded
// by the start timeout, so a run that offers no MCP tool never waits for
// a server. A server that fails to start is skipped with a warning and
// the others go on. Each of its tools becomes a [tools.Tool] named
// mcp__SERVER__TOOL (sanitised to [a-z0-9_], at most 64 bytes) with risk
// mcp, which the default policy asks about; its input schema is the
// server's, so the gateway validates arguments before the call, and its
// result passes the gateway's result checks and spilling like any tool's.
// Tool descriptions are untrusted text: capped at [MaxDescription] and
// labelled with the server's name.
//
// Every call has a timeout; a call that times out resets the connection
// (the server is killed and the next call connects again), since a server
// still busy with it would make every later call wait the full timeout
// too. An answer the SDK cannot read (over its 16 MiB line, or no
// JSON-RPC) fails that call with an error saying so and resets the
// connection the same way. Neither counts as a crash. A server that crashes (its process exits, its
// connection closes) is restarted once; when it crashes again, fails to
// restart, or comes back with other tool definitions, its tools are
// removed and calls to them get tool_unavailable naming the server.
// The tool list is fixed at start: a server's list_changed notification
// is logged, not followed (its new tools would be definitions nobody
// reviewed).
//
// It must not import agent or lspserver.
package mcp
