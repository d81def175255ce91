package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Shorthands for conversations in tests.
func user(s string) Message { return Message{Role: RoleUser, Content: s} }
func said(s string) Message { return Message{Role: RoleAssistant, Content: s} }
func result(id, s string) Message {
	return Message{Role: RoleTool, ToolCallID: id, Content: s}
}

func calls(ids ...string) Message {
	m := Message{Role: RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "read_file", Arguments: `{"path":"a.go"}`})
	}
	return m
}

func repairs(rs []Repair) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// TestToolResultPairing_A7 covers the four cases of the pairing
// normalizer: a call without result, duplicate call IDs, duplicate
// results, and results that are not its business (left to the orphan
// remover).
func TestToolResultPairing_A7(t *testing.T) {
	synthetic := func(id string) Message { return result(id, SyntheticResult) }
	tests := []struct {
		name    string
		in, out []Message
		repairs []string
	}{
		{name: "paired conversation is left alone",
			in: []Message{user("q"), calls("a", "b"), result("b", "B"), result("a", "A"), said("done")}},
		{name: "call without result gets a synthetic one",
			in:      []Message{user("q"), calls("a", "b"), result("a", "A"), user("next")},
			out:     []Message{user("q"), calls("a", "b"), result("a", "A"), synthetic("b"), user("next")},
			repairs: []string{"synthetic_tool_result:b"}},
		{name: "call at the very end gets a synthetic result",
			in:      []Message{user("q"), calls("a")},
			out:     []Message{user("q"), calls("a"), synthetic("a")},
			repairs: []string{"synthetic_tool_result:a"}},
		{name: "duplicate call ID in a later message: keep the first",
			in:      []Message{user("q"), calls("a"), result("a", "A"), calls("a", "c"), result("a", "A2"), result("c", "C")},
			out:     []Message{user("q"), calls("a"), result("a", "A"), calls("c"), result("a", "A2"), result("c", "C")},
			repairs: []string{"duplicate_tool_use:a"}},
		{name: "duplicate call ID in one message",
			in:      []Message{calls("a", "a"), result("a", "A")},
			out:     []Message{calls("a"), result("a", "A")},
			repairs: []string{"duplicate_tool_use:a"}},
		{name: "duplicate result: keep the first",
			in:      []Message{calls("a"), result("a", "first"), result("a", "second")},
			out:     []Message{calls("a"), result("a", "first")},
			repairs: []string{"duplicate_tool_result:a"}},
		{name: "assistant left empty is removed",
			in:      []Message{calls("a"), result("a", "A"), calls("a"), result("a", "again")},
			out:     []Message{calls("a"), result("a", "A"), result("a", "again")},
			repairs: []string{"duplicate_tool_use:a", "empty_assistant_removed"}},
		{name: "foreign results are left for the orphan remover",
			in: []Message{result("x", "X"), calls("a"), result("a", "A"), result("y", "Y")}},
		{name: "missing call ID gets one",
			in:      []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "f"}}}},
			out:     []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_norm_1", Name: "f"}}}, synthetic("call_norm_1")},
			repairs: []string{"missing_tool_call_id:call_norm_1", "synthetic_tool_result:call_norm_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			got, reps := pairResults(tt.in)
			want := tt.out
			if want == nil {
				want = tt.in
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("messages (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.repairs, repairs(reps)); d != "" {
				t.Errorf("repairs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(in, tt.in); d != "" {
				t.Errorf("Apply modified its input:\n%s", d)
			}
		})
	}
}

// TestOrphanToolResultRemover_A7: results that answer no call of the
// message they follow are removed.
func TestOrphanToolResultRemover_A7(t *testing.T) {
	in := []Message{result("x", "before anything"), user("q"), result("y", "after a user message"),
		calls("a"), result("a", "A"), result("b", "not this message's call"), said("text"), result("a", "after text")}
	got, reps := removeOrphans(in)
	want := []Message{user("q"), calls("a"), result("a", "A"), said("text")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"orphan_tool_result:x", "orphan_tool_result:y", "orphan_tool_result:b", "orphan_tool_result:a"}, repairs(reps)); d != "" {
		t.Errorf("repairs (-want +got):\n%s", d)
	}
}

// TestNormalize_A7_PriorityOrder: the pipeline sorts by priority whatever
// order it is given, so the synthetic results of pairing (8) are checked
// by the orphan remover (10), and the result is valid.
func TestNormalize_A7_PriorityOrder(t *testing.T) {
	in := []Message{user("q"), calls("a", "a", "b"), result("a", "A"), result("a", "A again"), result("z", "Z"),
		calls("a"), result("a", "dup call's result")}
	reversed := []Normalizer{OrphanToolResultRemover(), ToolResultPairing()}
	got, applied, err := Normalize(in, reversed)
	if err != nil {
		t.Fatal(err)
	}
	if names := []string{applied[0].Name, applied[1].Name}; !slices.Equal(names, []string{NameToolResultPairing, NameOrphanToolResultRemover}) {
		t.Errorf("ran in order %q", names)
	}
	want := []Message{user("q"), calls("a", "b"), result("a", "A"), result("z", "Z"), result("b", SyntheticResult)}
	want = slices.Delete(want, 3, 4) // z is an orphan
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if err := ValidatePairing(got); err != nil {
		t.Error(err)
	}
	again, applied, err := Normalize(got, DefaultNormalizers())
	if err != nil || len(applied) != 0 || !slices.EqualFunc(again, got, func(a, b Message) bool { return cmp.Equal(a, b) }) {
		t.Errorf("second pass repaired again: %+v %v", applied, err)
	}
}

// TestNormalize_A8_BrokenNormalizer: a normalizer that panics is skipped
// and reported with ErrNormalizer, without the panic's text (it may quote
// the conversation).
func TestNormalize_A8_BrokenNormalizer(t *testing.T) {
	boom := Normalizer{Name: "boom", Priority: 1, Apply: func([]Message) ([]Message, []Repair) { panic("secret content") }}
	in := []Message{user("q"), calls("a")}
	got, applied, err := Normalize(in, append(DefaultNormalizers(), boom))
	if !errors.Is(err, ErrNormalizer) || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v", err)
	}
	if len(applied) != 1 || ValidatePairing(got) != nil {
		t.Errorf("the other normalizers did not run: %+v", applied)
	}
	// Without the pairing normalizers the result stays invalid: reported.
	_, _, err = Normalize(in, nil)
	if !errors.Is(err, ErrNormalizer) || !strings.Contains(err.Error(), "has no result") {
		t.Errorf("err = %v", err)
	}
}

// TestDiagnose_A7_NoContent: the diagnostic names roles, block types and
// IDs, never content, and keeps odd IDs printable.
func TestDiagnose_A7_NoContent(t *testing.T) {
	got := Diagnose([]Message{{Role: RoleSystem, Content: "SECRET system"}, user("SECRET"), calls("a", "b\n\x1b[31m"),
		result("a", "SECRET result"), {Role: RoleAssistant}})
	want := `[0] system(text); [1] user(text); [2] assistant(tool_use=[a,b???31m]); [3] tool(text,tool_result=a); [4] assistant(empty)`
	if got != want {
		t.Errorf("Diagnose = %q, want %q", got, want)
	}
}

// FuzzNormalize_A7: whatever the conversation, the default pipeline leaves
// it valid, never panics, and a second pass changes nothing.
func FuzzNormalize_A7(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{3, 3, 3, 1, 1, 2, 9, 9, 9})
	f.Add([]byte{2, 1, 0, 2, 2, 2, 4, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var msgs []Message
		for i := 0; i+1 < len(b) && len(msgs) < 40; i += 2 {
			id := fmt.Sprintf("c%d", b[i+1]%4)
			switch b[i] % 5 {
			case 0:
				msgs = append(msgs, user("u"))
			case 1:
				msgs = append(msgs, said("a"))
			case 2:
				msgs = append(msgs, calls(id, fmt.Sprintf("c%d", b[i+1]/4%4)))
			case 3:
				msgs = append(msgs, result(id, "r"))
			case 4:
				msgs = append(msgs, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "x"}}})
			}
		}
		out, _, err := Normalize(msgs, DefaultNormalizers())
		if err != nil {
			t.Fatalf("%v\n%s", err, Diagnose(msgs))
		}
		again, applied, err := Normalize(out, DefaultNormalizers())
		if err != nil || len(applied) != 0 || len(again) != len(out) {
			t.Fatalf("second pass: %+v %v\n%s", applied, err, Diagnose(out))
		}
	})
}

// TestCheck_A8: the one call per repair point (seed 002's
// StrictMode.Check): a violation fails in strict mode and, with its
// dimension off, tells the observer strict_mode_would_fail.
func TestCheck_A8(t *testing.T) {
	for _, tt := range []struct {
		violated, enabled, fails, observed bool
	}{{false, false, false, false}, {false, true, false, false}, {true, false, false, true}, {true, true, true, false}} {
		var seen []Event
		err := Check(tt.violated, tt.enabled, ReporterFunc(func(e Event) { seen = append(seen, e) }), "detail")
		if (err != nil) != tt.fails || (err != nil && (!errors.Is(err, ErrStrict) || !strings.Contains(err.Error(), "detail"))) {
			t.Errorf("Check(%v, %v) = %v", tt.violated, tt.enabled, err)
		}
		observed := len(seen) == 1 && seen[0].Kind == EventStrictWouldFail && seen[0].Code == "strict_mode_would_fail" &&
			strings.Contains(seen[0].Message, "detail")
		if observed != tt.observed || (!tt.observed && len(seen) > 0) {
			t.Errorf("Check(%v, %v) told the observer %+v, want strict_mode_would_fail: %v", tt.violated, tt.enabled, seen, tt.observed)
		}
	}
}
