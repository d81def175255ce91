package mcp

// Status is what `agentls mcp list` shows of one server.
type Status struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// Why says why a server failed or was removed.
	Why      string `json:"why,omitempty"`
	Restarts int    `json:"restarts,omitempty"`
	// ToolsHash pins the tool definitions (see [Options.Accept]).
	ToolsHash string       `json:"tools_hash,omitempty"`
	Tools     []ToolStatus `json:"tools,omitempty"`
}

// ToolStatus is one tool of a server as the user reviews it.
type ToolStatus struct {
	// Name is the gateway's name (mcp__SERVER__TOOL); Remote the server's.
	Name   string `json:"name"`
	Remote string `json:"remote"`
	// Description is the server's text, untrusted, capped.
	Description string `json:"description"`
	// Hints are the server's annotations (read-only, destructive, …):
	// claims, never used to decide.
	Hints []string `json:"hints,omitempty"`
	// Skipped says why the tool is not offered.
	Skipped string `json:"skipped,omitempty"`
}

// Servers returns the status of every configured server, sorted by name.
func (m *Manager) Servers() []Status {
	m.wait()
	var out []Status
	for _, s := range m.servers {
		s.mu.Lock()
		st := Status{Name: s.name, State: s.state, Why: s.why, Restarts: s.restarts, ToolsHash: s.defsHash}
		defs := s.defs
		s.mu.Unlock()
		for _, d := range defs {
			ts := ToolStatus{Name: ToolName(s.name, d.Name), Remote: cut(d.Name, 128), Description: Description(d.Description),
				Hints: Hints(d.Annotations)}
			if _, err := s.tool(d); err != nil {
				ts.Skipped = err.Error()
			}
			st.Tools = append(st.Tools, ts)
		}
		out = append(out, st)
	}
	return out
}
