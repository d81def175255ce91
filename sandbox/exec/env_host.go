package exec

import "strings"

// HostEnv returns what a process the user configured to run outside the
// sandbox — a hook, an MCP server — inherits from parent (os.Environ):
// the allowlist a sandboxed command gets (S2), no credentials, plus the
// real HOME and SHELL, which such a process may need to find its own
// configuration. Extra variables the user configured for it come on top,
// from the caller.
func HostEnv(parent []string) []string {
	var env []string
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || secretVar(k, v) {
			continue
		}
		if passedEnv[k] || strings.HasPrefix(k, "LC_") || k == "HOME" || k == "SHELL" {
			env = append(env, kv)
		}
	}
	return env
}
