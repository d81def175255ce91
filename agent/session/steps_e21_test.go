package session

import (
	"testing"

	"github.com/agentls/agentls/agent"
)

// TestSession_Issue28_StepsSurvive (E21): the explanation of each tool
// call of a run is kept in the session's log, per run and in order, and
// a new process reads it back (`agentls why`).
func TestSession_Issue28_StepsSurvive(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, err := st.New()
	if err != nil {
		t.Fatal(err)
	}
	var _ agent.StepJournal = (*Run)(nil)
	r, err := s.Begin(t.Context(), agent.ModeExecute, "task")
	if err != nil {
		t.Fatal(err)
	}
	r.Step(&agent.Explanation{Step: 1, Turn: 1, Tool: "read_file", Decision: "allow", Because: "allowed because …"})
	r.Step(&agent.Explanation{Step: 2, Turn: 1, Tool: "run_command", Decision: "ask", Origin: "/p.json:3", ApprovedBy: "user"})
	r.End(agent.StatusDone, 1, "done")
	id, n := s.ID, r.N
	s.Release()

	other, _ := reopen(t, st)
	snap, err := other.Inspect(id)
	if err != nil {
		t.Fatal(err)
	}
	got := snap.Steps(n)
	if len(got) != 2 || got[0].Tool != "read_file" || got[1].Origin != "/p.json:3" || got[1].ApprovedBy != "user" || got[1].Step != 2 {
		t.Fatalf("steps after reopening = %+v", got)
	}
	if snap.Steps(n+1) != nil {
		t.Errorf("a run the session does not have has steps")
	}
	if m := snap.Messages(); len(m) != 0 {
		t.Errorf("step records became messages: %+v", m)
	}
}
