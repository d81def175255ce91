package main

import (
	"path/filepath"
)

// userPolicyPath is policy.json beside the user's config file
// ($XDG_CONFIG_HOME/agentls/policy.json).
func userPolicyPath(getenv func(string) string) string {
	cfg := configPath(getenv)
	if cfg == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(cfg), "policy.json")
}

// projectPolicyPath is the project's policy file inside root.
func projectPolicyPath(root string) string {
	return filepath.Join(root, ".agentls", "policy.json")
}

// stateDir is $XDG_STATE_HOME/agentls: the audit log and sessions.
func stateDir(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "agentls")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentls")
	}
	return ""
}
