package session

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// turn returns the messages of model turn i: a tool call and its result
// of about 1.5 KB, as a read_file turn looks.
func turn(i int) []agent.Message {
	id := fmt.Sprintf("call_%d", i)
	return []agent.Message{
		{Role: agent.RoleAssistant, Content: "Reading the next file.", ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"pkg/file%d.go"}`, i)}}},
		{Role: agent.RoleTool, ToolCallID: id, Content: strings.Repeat(fmt.Sprintf("line %d of the file with some code in it\n", i), 36)},
	}
}

// sessionOf writes a session of n turns, checkpointed turn by turn.
func sessionOf(tb testing.TB, st *Store, n int) (*Session, []agent.Message) {
	s, err := st.New()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := s.Begin(tb.Context(), agent.ModeExecute, "a long task")
	if err != nil {
		tb.Fatal(err)
	}
	msgs := []agent.Message{{Role: agent.RoleUser, Content: "a long task"}}
	for i := range n {
		msgs = append(msgs, turn(i)...)
		r.Checkpoint(msgs)
	}
	r.End(agent.StatusDone, n, "done")
	return s, msgs
}

// BenchmarkLoad_1000Turns: load a 1,000-turn session from disk (A11
// target: ≤ 50 ms). Reports the file size.
func BenchmarkLoad_1000Turns(b *testing.B) {
	st, err := Open(b.TempDir(), "/w", nil)
	if err != nil {
		b.Fatal(err)
	}
	s, msgs := sessionOf(b, st, 1000)
	fi, err := os.Stat(st.path(s.ID))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		got, err := load(st, s.ID)
		if err != nil || len(got.msgs) != len(msgs) || got.recovery != nil {
			b.Fatalf("%d messages, %v, %v", len(got.msgs), got.recovery, err)
		}
		got.Close()
	}
	b.ReportMetric(float64(fi.Size()), "file-bytes")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/load")
}

// BenchmarkCheckpoint appends one turn (with its fsync) to sessions of 10
// and of 1,000 turns: the cost does not grow with the session (O(1) per
// turn).
func BenchmarkCheckpoint(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			st, err := Open(b.TempDir(), "/w", nil)
			if err != nil {
				b.Fatal(err)
			}
			s, msgs := sessionOf(b, st, n)
			r, err := s.Begin(b.Context(), agent.ModeExecute, "more")
			if err != nil {
				b.Fatal(err)
			}
			defer r.End(agent.StatusDone, 0, "")
			i := n
			for b.Loop() {
				msgs = append(msgs, turn(i)...)
				i++
				r.Checkpoint(msgs)
			}
		})
	}
}

// BenchmarkList_1000Sessions: `agentls sessions` in a workspace of 1,000
// sessions (issue 26 target: under 50 ms), from their indexes.
func BenchmarkList_1000Sessions(b *testing.B) {
	state := b.TempDir()
	st, err := Open(state, "/w", nil)
	if err != nil {
		b.Fatal(err)
	}
	st.fsync = func(*os.File) error { return nil } // setup speed only
	for range 1000 {
		s, _ := sessionOf(b, st, 3)
		s.Close()
	}
	fresh, err := Open(state, "/w", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if infos, err := fresh.List(); err != nil || len(infos) != 1000 {
			b.Fatalf("%d sessions, %v", len(infos), err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/list")
}

// BenchmarkList_HugeRecord: the list of a workspace whose one session
// holds a 100 MB record (issue 26: 1.6 s and 214 MiB when read in full).
func BenchmarkList_HugeRecord(b *testing.B) {
	state := b.TempDir()
	st, err := Open(state, "/w", nil)
	if err != nil {
		b.Fatal(err)
	}
	hugeSession(b, st, 100<<20)
	fresh, err := Open(state, "/w", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if infos, err := fresh.List(); err != nil || len(infos) != 1 {
			b.Fatalf("%d sessions, %v", len(infos), err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/list")
}
