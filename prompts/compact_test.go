package prompts

import (
	"strings"
	"testing"
)

// TestCompact_A9_ForbidsTools: the compaction prompt starts by forbidding
// tools and asks to keep file paths and task state.
func TestCompact_A9_ForbidsTools(t *testing.T) {
	got := Compact(CompactData{Brief: BriefExecute})
	if !strings.HasPrefix(got, "Do NOT call any tools.") {
		t.Errorf("prompt does not start with the tool ban:\n%s", got)
	}
	for _, want := range []string{"file path", "task state", "600 words", "mode execute"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt misses %q:\n%s", want, got)
		}
	}
}

// TestSubAgent_A10_CannotSpawn: the sub-agent prompt says it cannot spawn
// agents and gives its turn limit; it lists no tools (issue 16).
func TestSubAgent_A10_CannotSpawn(t *testing.T) {
	got := SubAgent(SubAgentData{MaxTurns: 7, ReadOnly: true})
	for _, want := range []string{"cannot spawn agents", "at most 7 model turns", "Read-only"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt misses %q:\n%s", want, got)
		}
	}
	if len(got) > 1200 {
		t.Errorf("sub-agent prompt is %d bytes; keep it under 1200", len(got))
	}
}
