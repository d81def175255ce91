package lspserver

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
)

// commandModes maps the commands that start a run to its mode.
var commandModes = map[string]agent.Mode{
	command.Plan:    agent.ModePlan,
	command.Review:  agent.ModeReview,
	command.Execute: agent.ModeExecute,
}

// CommandFor returns the command that starts a run in mode m.
func CommandFor(m agent.Mode) string {
	for cmd, mode := range commandModes {
		if mode == m {
			return cmd
		}
	}
	return ""
}
