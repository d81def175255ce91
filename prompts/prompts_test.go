package prompts

import (
	"strings"
	"testing"
)

// TestSystem_E4_ModesSayWhatTheyMay checks the instruction layer of E4: each
// mode's prompt names its mode and the tools offered, and stays lean.
func TestSystem_E4_ModesSayWhatTheyMay(t *testing.T) {
	for _, mode := range []Brief{BriefPlan, BriefReview, BriefExecute} {
		got := System(SystemData{Brief: mode, Tools: []string{"read_file", "search"}})
		if !strings.Contains(got, "Mode: "+strings.ToUpper(string(mode))) {
			t.Errorf("%s: mode missing:\n%s", mode, got)
		}
		if !strings.Contains(got, "read_file, search") {
			t.Errorf("%s: tools missing:\n%s", mode, got)
		}
		if mode != BriefExecute && !strings.Contains(got, "Read-only") {
			t.Errorf("%s: read-only not stated", mode)
		}
		if len(got) > 1200 {
			t.Errorf("%s: system prompt is %d bytes; keep it under 1200", mode, len(got))
		}
	}
}

func TestTask_RendersSelection(t *testing.T) {
	got := Task(TaskData{Instruction: "fix it", Path: "a.go", Range: "L1:C1-L2:C3", Selection: "x := 1"})
	for _, want := range []string{"fix it", "File: a.go (selection L1:C1-L2:C3)", "x := 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("task missing %q:\n%s", want, got)
		}
	}
	if got := Task(TaskData{Instruction: "only"}); strings.TrimSpace(got) != "only" {
		t.Errorf("bare task = %q", got)
	}
}
