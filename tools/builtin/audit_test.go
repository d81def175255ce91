package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

// slowProposer answers after a while, as a user deciding in the editor.
type slowProposer struct {
	after   time.Duration
	outcome *tools.EditOutcome
}

func (p slowProposer) Propose(ctx context.Context, _ *tools.FileChange) (*tools.EditOutcome, error) {
	defer tools.AwaitUser(ctx)()
	select {
	case <-time.After(p.after):
		return p.outcome, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func auditOf(t *testing.T, h *harness, ctx context.Context, prop tools.EditProposer) tools.AuditRecord {
	t.Helper()
	var buf bytes.Buffer
	env := h.env()
	env.Edits = prop
	r := newGateway(h.reg, env, &tools.GatewayOptions{Allowed: allTools.Allowed, Audit: tools.NewAuditLog(&buf)})
	args, _ := json.Marshal(editArgsJSON("src/main.go", edit{"hi", "yo"}))
	_, _ = r.Call(ctx, "edit_file", string(args))
	var rec tools.AuditRecord
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("audit %q: %v", buf.String(), err)
	}
	return rec
}

// T10, #12 item 9: the audit record of an edit the user rejected says
// nobody approved it (approved_by empty, code approval_denied) and how
// long the call took, the user's part included (wait_ms). Before, it said
// approved_by "diff" with duration_ms 0; an applied edit still says diff.
func TestAudit_T10_DeniedEdit(t *testing.T) {
	h := newHarness(t)
	denied := auditOf(t, h, t.Context(), slowProposer{after: 20 * time.Millisecond, outcome: &tools.EditOutcome{Reason: "the user rejected the change"}})
	if denied.ApprovedBy != "" || denied.Code != tools.CodeApprovalDenied {
		t.Errorf("denied edit: approved_by %q code %q, want empty and approval_denied", denied.ApprovedBy, denied.Code)
	}
	if denied.DurationMS < 20 || denied.WaitMS < 20 || denied.WaitMS > denied.DurationMS {
		t.Errorf("denied edit: duration_ms %d wait_ms %d, want both ≥ 20", denied.DurationMS, denied.WaitMS)
	}
	applied := auditOf(t, h, t.Context(), slowProposer{outcome: &tools.EditOutcome{Applied: true, Saved: true}})
	if applied.ApprovedBy != "diff" || applied.Code != "" || applied.DurationMS < 1 {
		t.Errorf("applied edit: approved_by %q code %q duration_ms %d, want diff, no code, ≥ 1", applied.ApprovedBy, applied.Code, applied.DurationMS)
	}
}

// T10, #12 item 9: an edit whose run is cancelled while the editor holds
// it is recorded as cancelled, not as an internal error.
func TestAudit_T10_CancelledEdit(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	rec := auditOf(t, h, ctx, slowProposer{after: time.Hour})
	if rec.Code != tools.CodeCancelled || rec.ApprovedBy != "" {
		t.Errorf("cancelled edit: code %q approved_by %q, want cancelled and empty", rec.Code, rec.ApprovedBy)
	}
}

type failingWriter struct{ n atomic.Int32 }

func (w *failingWriter) Write([]byte) (int, error) {
	w.n.Add(1)
	return 0, errors.New("no space left on device")
}

// T10, #12 item 9: a write failure is told once to Notify and counted in
// Health; before, it was only counted in a field nobody read.
func TestAudit_T10_WriteFailureNotifiedOnce(t *testing.T) {
	w := &failingWriter{}
	a := tools.NewAuditLog(w)
	var told []string
	a.Notify(func(err error) { told = append(told, err.Error()) })
	for range 3 {
		a.Record(&tools.AuditRecord{Tool: "read_file"})
	}
	n, err := a.Health()
	if n != 3 || err == nil || !strings.Contains(err.Error(), "no space") {
		t.Errorf("Health() = %d, %v; want 3 and the error", n, err)
	}
	if len(told) != 1 {
		t.Errorf("told %d times, want once: %q", len(told), told)
	}
	if err := tools.CheckAuditLog(t.TempDir() + "/state/agentls"); err != nil {
		t.Errorf("a missing state dir under a writable one: %v", err)
	}
}
