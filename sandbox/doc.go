// Package sandbox holds the policy and enforcement primitives that sit
// underneath every tool. Each concern is a sub-package, as mvdan.cc/sh
// splits syntax, expand and interp:
//
//   - sandbox/shell: static analysis of shell commands (mvdan.cc/sh);
//   - sandbox/exec: the process runner (namespaces, Landlock, seccomp,
//     limits, output caps);
//   - sandbox/netguard: URL, address and redirect checks and the HTTP
//     client that enforces them at dial time;
//   - sandbox/sqlguard: SQL checks and read-only SQLite queries.
//
// The root keeps only what they share: path resolution ([ResolvePath],
// [ResolveWithin]) and confined file I/O with atomic writes ([Root], on
// [os.Root]), the one allow/ask/deny value ([Decision]) and the one
// refusal ([*PolicyError]), which the tools package turns into a
// structured error for the model.
//
// Nothing here knows about tools, models or editors: the root imports only
// the standard library and none of the sub-packages; a sub-package imports
// the root, the standard library and the one library its concern needs,
// never a sibling (cmd/agentls/deps_test.go checks this).
package sandbox
