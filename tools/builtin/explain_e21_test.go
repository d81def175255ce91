package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// alwaysAt answers every question "always" at one scope.
type alwaysAt struct{ scope tools.Scope }

func (a alwaysAt) Approve(context.Context, *tools.ApprovalRequest) (tools.ApprovalResponse, error) {
	return tools.ApprovalResponse{Answer: tools.AnswerAlways, Scope: a.scope}, nil
}

// TestGateway_Issue28_ExplainAllowance (E21): a call an "always" answer
// covers is explained with the answer's scope and its allowance ID, and
// the audit's approved_by tells the scopes apart: user(always:workspace)
// when the user says it, always:workspace with the grant's ID when it
// covers a later call, always:session for one kept in memory; a tool's
// own deny names the check and nobody approved it.
func TestGateway_Issue28_ExplainAllowance(t *testing.T) {
	var audit bytes.Buffer
	storePath := filepath.Join(t.TempDir(), "allow.json")
	store := tools.OpenAllowances(storePath, nil)
	g, runs := gateway(t, alwaysAt{tools.ScopeWorkspace}, nil, store, tools.NewAuditLog(&audit))
	first := call(t, g, `{"cmd":"make"}`)
	second := call(t, g, `{"cmd":"make"}`)
	if runs.Load() != 2 || first.Explain == nil || second.Explain == nil {
		t.Fatalf("runs %d, explanations %v %v", runs.Load(), first.Explain, second.Explain)
	}
	if e := first.Explain; e.ApprovedBy != "user(always:workspace)" || e.Decision != tools.Ask || e.Source != tools.SourceRiskDefault ||
		!strings.Contains(e.Because, `asked because exec_thing has risk execute, no policy rule matches "make", and the built-in risk default of profile editor for execute is ask`) {
		t.Errorf("first call: %+v", e)
	}
	grants, err := tools.OpenAllowStore(storePath).Grants()
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %v %v", grants, err)
	}
	e := second.Explain
	if e.ApprovedBy != "always:workspace" || e.Grant != grants[0].ID || !strings.Contains(e.Outcome, "allowance "+grants[0].ID) {
		t.Errorf("second call: %+v (grant %s)", e, grants[0].ID)
	}
	text := e.String()
	for _, want := range []string{"exec_thing make", "decision: ask, by risk execute", "approved: an \"always\" answer kept for the workspace (allowance " + grants[0].ID} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var recs []tools.AuditRecord
	for _, l := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		var r tools.AuditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 || recs[0].ApprovedBy != "user(always:workspace)" || recs[1].ApprovedBy != "always:workspace" || recs[1].Grant != grants[0].ID ||
		recs[1].Source != tools.SourceRiskDefault || recs[1].Because == "" || strings.Contains(recs[1].Because, "make") {
		t.Errorf("audit: %+v", recs)
	}

	mem, _ := gateway(t, alwaysAt{tools.ScopeSession}, nil, tools.NewAllowances(), nil)
	call(t, mem, `{"cmd":"make"}`)
	if e := call(t, mem, `{"cmd":"make"}`).Explain; e.ApprovedBy != "always:session" || e.Grant != "" || !strings.Contains(e.String(), "kept in memory") {
		t.Errorf("session scope in memory: %+v", e)
	}

	denied := call(t, g, `{"cmd":"rm -rf ~"}`).Explain
	if denied.Decision != tools.Deny || denied.ApprovedBy != "" || denied.Source != tools.SourceTool || denied.Rule != "shell.rm_home" ||
		!strings.Contains(denied.Because, "denied because exec_thing's own check (shell.rm_home) says: irreversible (command_denied)") ||
		!strings.Contains(denied.String(), "approved: nobody (it did not run)") {
		t.Errorf("tool deny: %+v\n%s", denied, denied.String())
	}
}
