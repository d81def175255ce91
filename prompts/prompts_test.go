package prompts

import (
	"strings"
	"testing"
)

// TestSystem_E4_ModesSayWhatTheyMay checks the instruction layer of E4: each
// mode's prompt names its mode and stays lean; it lists no tools, since the
// request does (issue 16, context diet).
func TestSystem_E4_ModesSayWhatTheyMay(t *testing.T) {
	for _, mode := range []Brief{BriefPlan, BriefReview, BriefExecute} {
		got := System(SystemData{Brief: mode})
		if !strings.Contains(got, "Mode: "+strings.ToUpper(string(mode))) {
			t.Errorf("%s: mode missing:\n%s", mode, got)
		}
		if strings.Contains(got, "Tools:") || strings.Contains(got, "list_dir") {
			t.Errorf("%s: issue 16: the system prompt repeats the tool list:\n%s", mode, got)
		}
		if mode != BriefExecute && !strings.Contains(got, "Read-only") {
			t.Errorf("%s: read-only not stated", mode)
		}
		// Seed 003's instruction layer: the execute brief points the model
		// at human_confirm for what the user may not expect.
		if mode == BriefExecute && !strings.Contains(got, "human_confirm") {
			t.Errorf("%s: human_confirm not mentioned:\n%s", mode, got)
		}
		if len(got) > 500 {
			t.Errorf("%s: issue 16: system prompt is %d bytes; keep it under 500", mode, len(got))
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

// TestPrompts_Issue16_EveryPlaceholderFilled: no {{name}} survives in any
// rendered prompt, and every prompt file is used.
func TestPrompts_Issue16_EveryPlaceholderFilled(t *testing.T) {
	var got []string
	for _, b := range []Brief{BriefPlan, BriefReview, BriefExecute} {
		got = append(got, System(SystemData{Brief: b}), Compact(CompactData{Brief: b}))
	}
	got = append(got, SubAgent(SubAgentData{MaxTurns: 3, ReadOnly: true}), SubAgent(SubAgentData{MaxTurns: 3}),
		Task(TaskData{Instruction: "x", Path: "a.go", Range: "L1:C1-L1:C2", Selection: "y"}))
	for _, p := range got {
		if strings.Contains(p, "{{") || strings.Contains(p, ".md:") {
			t.Errorf("unfilled or missing prompt:\n%s", p)
		}
	}
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(got, "\n")
	for _, e := range entries {
		if first, _, _ := strings.Cut(text(e.Name()), "{{"); !strings.Contains(all, strings.TrimSpace(first)) {
			t.Errorf("%s is never rendered", e.Name())
		}
	}
}
