package lspserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/tools"
)

// reviewer answers workspace/applyEdit as our plugins' review does, on
// a.go open in the test editor: it applies the accepted hunks (hunk i
// with edits[i] when the user edited it) and replies with reply's
// "agentls" member.
func reviewer(t *testing.T, h *harness, accept map[int]bool, edits map[int]string, reply map[string]any) {
	ed := newEditor(h)
	ed.accept = func(i int) bool { return accept[i] }
	ed.open("a.go", 1, nil)
	h.c.Handle("workspace/applyEdit", func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p applyParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		for i, text := range edits {
			p.Edit.DocumentChanges[0].Edits[i].NewText = text
		}
		edited, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		ans, err := ed.applyEdit(ctx, edited)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(ans)
		out := map[string]any{}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, err
		}
		maps.Copy(out, reply)
		return out, nil
	})
}

// hunkResult is the tool result of an edit with the user's answers.
type hunkResult struct {
	Applied bool `json:"applied"`
	Hunks   []struct {
		Index      int    `json:"index"`
		Applied    bool   `json:"applied"`
		UserReason string `json:"user_reason"`
		UserChange string `json:"user_change"`
	} `json:"hunks"`
	Reason     string `json:"reason"`
	Code       string `json:"code"`
	UserReason string `json:"user_reason"`
}

func (h *harness) hunkResult(id string) hunkResult {
	h.t.Helper()
	var r hunkResult
	if err := json.Unmarshal([]byte(h.toolResult(id)), &r); err != nil {
		h.t.Fatal(err)
	}
	return r
}

// Issue 28: the user rejects one hunk with a reason and accepts the
// other; the model is told the reason on that hunk, and the audit log
// records it.
func TestServer_Issue28_HunkRejectedWithReason(t *testing.T) {
	var audit bytes.Buffer
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true),
		opts: func(o *lspserver.Options) { o.Audit = tools.NewAuditLog(&audit) }})
	reviewer(t, h, map[int]bool{0: true}, nil, map[string]any{
		"agentls": map[string]any{"hunks": []map[string]any{{"index": 1, "reason": "Two must stay 2: callers rely on it"}}}})
	h.mustRun("agentls.execute", execArg(h))
	r := h.hunkResult("e1")
	if !r.Applied || len(r.Hunks) != 2 || !r.Hunks[0].Applied || r.Hunks[1].Applied {
		t.Fatalf("tool result %+v, want hunk 1 applied, hunk 2 rejected", r)
	}
	if r.Hunks[1].UserReason != "Two must stay 2: callers rely on it" || r.Hunks[0].UserReason != "" {
		t.Errorf("hunk reasons %+v, want the user's words on the rejected hunk", r.Hunks)
	}
	if !strings.Contains(audit.String(), `"user_reason":"hunk 2 (lines 9): Two must stay 2: callers rely on it"`) {
		t.Errorf("the audit log lacks the hunk's reason:\n%s", audit.String())
	}
}

// Issue 28: every hunk rejected with a reason for the whole change is
// approval_denied with the user's words.
func TestServer_Issue28_ChangeRejectedWithReason(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true)})
	reviewer(t, h, nil, nil, map[string]any{"failureReason": "the user rejected every hunk",
		"agentls": map[string]any{"reason": "use constants instead"}})
	h.mustRun("agentls.execute", execArg(h))
	r := h.hunkResult("e1")
	if r.Code != "approval_denied" || r.UserReason != "use constants instead" {
		t.Errorf("tool result %+v, want approval_denied with user_reason", r)
	}
	if h.read("a.go") != twoFuncs {
		t.Error("a.go changed")
	}
}

// Issue 28: the user edits a hunk before accepting it; their text lands
// and the model is told the user changed its proposal, with the diff of
// that change, not that the file went stale.
func TestServer_Issue28_HunkEditedBeforeAccepting(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: clientCaps(true, true, true)})
	mine := "func One() int { return 11 }\n"
	reviewer(t, h, map[int]bool{0: true, 1: true}, map[int]string{0: mine}, map[string]any{
		"agentls": map[string]any{"hunks": []map[string]any{{"index": 0, "text": mine}}}})
	h.mustRun("agentls.execute", execArg(h))
	want := strings.Replace(twoFuncsEdited, "return 10", "return 11", 1)
	if got := h.read("a.go"); got != want {
		t.Fatalf("a.go = %q, want the user's text %q", got, want)
	}
	r := h.hunkResult("e1")
	if r.Code != "" || !r.Applied || len(r.Hunks) != 2 {
		t.Fatalf("tool result %+v, want applied", r)
	}
	if !strings.Contains(r.Reason, "the user changed your proposal") {
		t.Errorf("reason %q does not say the user changed the proposal", r.Reason)
	}
	if c := r.Hunks[0].UserChange; !strings.Contains(c, "-func One() int { return 10 }") || !strings.Contains(c, "+func One() int { return 11 }") {
		t.Errorf("user_change %q is not the diff of the user's change", c)
	}
	if r.Hunks[1].UserChange != "" {
		t.Errorf("hunk 2 has a user change: %q", r.Hunks[1].UserChange)
	}
}
