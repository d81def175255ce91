package lspserver_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// allowEdits loads the editor policy with an allow rule for edit_file, so
// the gateway marks its changes preapproved.
func allowEdits(string) (*tools.Policy, error) {
	p := tools.DefaultPolicy(tools.ProfileEditor)
	p.ApprovalTimeout = 5 * time.Second
	r, err := tools.ParseRule("edit_file(a.go)", tools.Allow, "user")
	if err != nil {
		return nil, err
	}
	p.Rules = append(p.Rules, r)
	return p, nil
}

// E6/T5: a change the policy allows outright (FileChange.Preapproved) is
// applied without a question: a client without change annotations is not
// asked first, and a client with them gets annotations that need no
// confirmation. Without the rule, both ask (TestServer_E6_AnnotatedApplyAll,
// TestServer_E6_NoAnnotationsAsksFirst).
func TestServer_E6_T5_PreapprovedChangeIsNotAsked(t *testing.T) {
	for _, annotations := range []bool{false, true} {
		h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(annotations, true, true),
			opts: func(o *lspserver.Options) { o.LoadPolicy = allowEdits }})
		newEditor(h).open("a.go", 1, nil)
		res := h.mustRun(command.Execute, execArg(h))
		if n := len(h.c.Received("window/showMessageRequest")); n != 0 {
			t.Errorf("annotations=%v: %d questions about a preapproved change", annotations, n)
		}
		applies := h.c.Received("workspace/applyEdit")
		if len(applies) != 1 {
			t.Fatalf("annotations=%v: %d applyEdit, want 1", annotations, len(applies))
		}
		var p applyParams
		if err := json.Unmarshal(applies[0].Params, &p); err != nil {
			t.Fatal(err)
		}
		if annotations && len(p.Edit.ChangeAnnotations) == 0 {
			t.Errorf("no annotations sent: %s", applies[0].Params)
		}
		for id, a := range p.Edit.ChangeAnnotations {
			if a.NeedsConfirmation {
				t.Errorf("annotation %s needs confirmation for a preapproved change", id)
			}
		}
		if e := res.Edits; e.Applied != 2 {
			t.Errorf("annotations=%v: edits %+v, want 1 applied", annotations, e)
		}
	}
}
