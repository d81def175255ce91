package main

import "path/filepath"

// userPolicyPath is $XDG_CONFIG_HOME/agentls/policy.json.
func userPolicyPath(getenv func(string) string) string {
	return configFile(getenv, "policy.json")
}

// projectPolicyPath is the project's policy file inside root.
func projectPolicyPath(root string) string {
	return filepath.Join(root, ".agentls", "policy.json")
}

func configFile(getenv func(string) string, name string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "agentls", name)
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "agentls", name)
	}
	return ""
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
