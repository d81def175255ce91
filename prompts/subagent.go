package prompts

// SubAgentData fills a sub-agent's system prompt (A10).
type SubAgentData struct {
	MaxTurns int
	ReadOnly bool
}

// SubAgent renders the system prompt of a sub-agent. It is the instruction
// layer of A10: it says the sub-agent cannot spawn agents. The tools it is
// given have no agent tool (parameter layer) and a depth check refuses recursion
// (fallback).
func SubAgent(d SubAgentData) string {
	readOnly := ""
	if d.ReadOnly {
		readOnly = " Read-only: do not change anything."
	}
	return fill("subagent.md", "read_only", readOnly, "max_turns", itoa(d.MaxTurns))
}
