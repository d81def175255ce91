package proposalcheck

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A check that runs past the question's budget does not delay the
// question: Line returns "pending" once the budget has passed, and the
// result, when the limit stops the check, says it timed out.
func TestProposalCheck_E22_OverBudgetIsPendingThenTimedOut(t *testing.T) {
	r := testRunner(t)
	ws := writeTree(t, map[string]string{"a.txt": "x\n"})
	budget, limit := 300*time.Millisecond, 3*time.Second
	p := r.Start(context.Background(), ws, map[string][]byte{"a.txt": []byte("y\n")},
		[]Check{{Name: "slow", Command: "sleep 600"}}, budget, limit)
	start := time.Now()
	line := p.Line(context.Background())
	took := time.Since(start)
	if !strings.HasPrefix(line, "checks: pending") {
		t.Fatalf("line %q", line)
	}
	if took < budget || took > budget+time.Second {
		t.Errorf("the question waited %v; the budget is %v", took, budget)
	}
	if p.Result() != nil {
		t.Error("a result before the checks ended")
	}
	<-p.Done()
	if s := p.Result().Summary(); s != "checks: timed out after 3s (slow)" {
		t.Errorf("final %q", s)
	}
}

// Checks done within the budget answer at once, with their result.
func TestProposalCheck_E22_WithinBudgetShowsResult(t *testing.T) {
	r := testRunner(t)
	ws := writeTree(t, map[string]string{"a.py": "X = 1\n"})
	p := r.Start(context.Background(), ws, map[string][]byte{"a.py": []byte("X = (\n")}, Detect(ws, []string{"a.py"}), time.Minute, time.Minute)
	if line := p.Line(context.Background()); !strings.HasPrefix(line, "checks: compileall: 1 problem: a.py:1: SyntaxError") {
		t.Fatalf("line %q", line)
	}
}
