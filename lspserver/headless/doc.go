// Package headless is agentls's built-in LSP client: `agentls plan|review|exec`
// and `agentls demo` run the real server in-process over a pipe and play the
// editor. The client's "buffers" are the files on disk, so edits it approves
// are written to disk (atomically), and edits it refuses never are.
// Approvals are asked on the terminal, or answered by --approve=never|all.
//
// It talks to the server only through the LSP wire protocol, like any other
// editor. Like the editors' run views (E16) it announces
// experimental.agentls.runEvents and shows each tool call's outcome: the
// text has a line per call, and under a command its exit code, the files it
// added, changed and deleted that landed (S9: "+ added new.txt",
// "~ changed main.go", "- deleted old.txt") and the head of its output,
// control characters made visible (T22).
//
// With --json every line on stdout is one event, an object whose "type" is
// progress, log, diff, approval, diagnostics, tool_result, deleted, error,
// result or revert. A tool_result event is
//
//	{"code":"","depth":0,"exitCode":0,"files":[{"path":"new.txt","change":"added"}],
//	 "message":"","ok":true,"output":"exit code 0, 12ms\n[files added: new.txt]\n",
//	 "subject":"echo x > new.txt","tool":"run_command","turn":1,"type":"tool_result"}
//
// where files (never null) are the files the command changed that landed,
// workspace-relative, change "added", "changed" or "deleted"; exitCode is
// null for a tool that runs no command; code and message say why a call
// failed or was refused (ok false); output is the head of what the model
// got. A run's last event is its result, or the error that failed it.
package headless
