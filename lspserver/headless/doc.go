// Package headless is agentls's built-in LSP client: `agentls plan|review|exec`
// and `agentls demo` run the real server in-process over a pipe and play the
// editor. The client's "buffers" are the files on disk, so edits it approves
// are written to disk (atomically), and edits it refuses never are.
// Approvals are asked on the terminal, or answered by --approve=never|all.
//
// It talks to the server only through the LSP wire protocol, like any other
// editor.
package headless
