package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

// A16: a run keeps the old content of each file before its first change,
// and records what it left; the revert target and the old content come
// back in the next process; a reverted run is not reverted twice.
func TestRun_A16_KeepAndRevertTarget(t *testing.T) {
	for _, state := range []string{"disk", "memory"} {
		t.Run(state, func(t *testing.T) {
			dir := ""
			if state == "disk" {
				dir = t.TempDir()
			}
			st, _ := newStore(t, dir)
			s, _ := st.New()
			r, _ := s.Begin(t.Context(), agent.ModeExecute, "change")
			if err := r.Keep("a.go", []byte("v1"), true); err != nil {
				t.Fatal(err)
			}
			r.Changed("a.go", []byte("v2"), true)
			if err := r.Keep("a.go", []byte("v2"), true); err != nil { // a second change: the first old content stays
				t.Fatal(err)
			}
			r.Changed("a.go", []byte("v3"), true)
			if err := r.Keep("new.go", nil, false); err != nil {
				t.Fatal(err)
			}
			r.Changed("new.go", []byte("fresh"), true)
			r.End(agent.StatusDone, 1, "")
			if dir != "" {
				st, _ = reopen(t, st)
				s, _ = st.Session(s.ID)
			}
			target, err := s.RevertTarget(0)
			if err != nil {
				t.Fatal(err)
			}
			if len(target.Changes) != 2 || target.N != 1 {
				t.Fatalf("target %+v", target)
			}
			a, n := target.Changes[0], target.Changes[1]
			if a.Path != "a.go" || a.Before != Hash([]byte("v1")) || a.After != Hash([]byte("v3")) || !a.Kept || a.Create {
				t.Errorf("a.go: %+v", a)
			}
			if n.Path != "new.go" || !n.Create || n.After != Hash([]byte("fresh")) {
				t.Errorf("new.go: %+v", n)
			}
			if old, err := s.Old(1, a); err != nil || string(old) != "v1" {
				t.Errorf("old a.go = %q, %v", old, err)
			}
			rev, _ := s.BeginRevert(t.Context(), 1)
			rev.Reverted(1, []string{"a.go", "new.go"}, nil, nil)
			rev.End(agent.StatusDone, 0, "")
			if _, err := s.RevertTarget(1); !errors.Is(err, ErrNothingToRevert) || !strings.Contains(err.Error(), "reverted by "+s.ID+"-2") {
				t.Errorf("second revert: %v", err)
			}
			if _, err := s.RevertTarget(0); !errors.Is(err, ErrNothingToRevert) {
				t.Errorf("latest after the revert: %v", err)
			}
			if _, err := s.RevertTarget(9); !errors.Is(err, ErrNoRun) {
				t.Errorf("run 9: %v", err)
			}
		})
	}
}

// A16: a revert that restored nothing (all stale) leaves the run
// revertable.
func TestRun_A16_StaleRevertLeavesRun(t *testing.T) {
	st, _ := newStore(t, t.TempDir())
	s, _ := st.New()
	r, _ := s.Begin(t.Context(), agent.ModeExecute, "change")
	_ = r.Keep("a.go", []byte("v1"), true)
	r.Changed("a.go", []byte("v2"), true)
	r.End(agent.StatusDone, 1, "")
	rev, _ := s.BeginRevert(t.Context(), 1)
	// A file the revert found changed is kept, and is no change of it.
	_ = rev.Keep("a.go", []byte("user's"), true)
	rev.Changed("a.go", []byte("user's"), true)
	rev.Reverted(1, nil, []string{"a.go"}, nil)
	rev.End(agent.StatusDone, 0, "")
	if got, err := s.RevertTarget(0); err != nil || got.N != 1 {
		t.Errorf("target %+v, %v", got, err)
	}
	if _, err := s.RevertTarget(2); !errors.Is(err, ErrNothingToRevert) {
		t.Errorf("the revert run changed nothing, yet: %v", err)
	}
	// A creation that did not land is no change either.
	r3, _ := s.Begin(t.Context(), agent.ModeExecute, "create")
	_ = r3.Keep("new.go", nil, false)
	r3.Changed("new.go", nil, false)
	r3.End(agent.StatusDone, 1, "")
	if _, err := s.RevertTarget(3); !errors.Is(err, ErrNothingToRevert) {
		t.Errorf("a creation that did not land: %v", err)
	}
}

// A16: the bounds: a file over FileBytes, files beyond RunFiles and bytes
// beyond RunBytes are not kept (the change is recorded as such); a damaged
// or pruned checkpoint is refused, never restored.
func TestRun_A16_Limits(t *testing.T) {
	st, err := Open(t.TempDir(), "/w", &Options{Limits: &Limits{FileBytes: 10, RunFiles: 2, RunBytes: 15, Runs: 1, TotalBytes: 1 << 20, MaxAge: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := st.New()
	r, _ := s.Begin(t.Context(), agent.ModeExecute, "x")
	if err := r.Keep("big", []byte("01234567890"), true); !errors.Is(err, ErrNotKept) {
		t.Errorf("big: %v", err)
	}
	if err := r.Keep("a", []byte("0123456789"), true); err != nil {
		t.Errorf("a: %v", err)
	}
	if err := r.Keep("b", []byte("0123456789"), true); !errors.Is(err, ErrNotKept) {
		t.Errorf("b over RunBytes: %v", err)
	}
	if err := r.Keep("c", []byte("01"), true); err != nil {
		t.Errorf("c: %v", err)
	}
	if err := r.Keep("d", []byte("0"), true); !errors.Is(err, ErrNotKept) {
		t.Errorf("d over RunFiles: %v", err)
	}
	if err := r.Keep("big", []byte("x"), true); !errors.Is(err, ErrNotKept) {
		t.Errorf("big again: %v", err)
	}
	for _, p := range []string{"big", "a", "b", "c", "d"} {
		r.Changed(p, []byte("new"), true)
	}
	r.End(agent.StatusDone, 1, "")
	info, _ := s.RevertTarget(1)
	kept := map[string]bool{}
	for _, c := range info.Changes {
		kept[c.Path] = c.Kept
	}
	if len(kept) != 5 || !kept["a"] || !kept["c"] || kept["big"] || kept["b"] || kept["d"] {
		t.Errorf("kept %v", kept)
	}
	var a ChangeInfo
	for _, c := range info.Changes {
		if c.Path == "a" {
			a = c
		}
	}
	blob := filepath.Join(s.blobDir(1), a.Before)
	if err := os.WriteFile(blob, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Old(1, a); !errors.Is(err, ErrNotKept) || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("tampered checkpoint: %v", err)
	}
	// Runs: 1 — the next run's checkpoint prunes this one.
	old := time.Now().Add(-time.Minute)
	_ = os.Chtimes(blob, old, old)
	_ = os.Chtimes(s.blobDir(1), old, old)
	r2, _ := s.Begin(t.Context(), agent.ModeExecute, "y")
	_ = r2.Keep("e", []byte("e"), true)
	r2.Changed("e", []byte("f"), true)
	r2.End(agent.StatusDone, 1, "")
	r3, _ := s.Begin(t.Context(), agent.ModeExecute, "z")
	r3.End(agent.StatusDone, 1, "")
	if _, err := os.Stat(s.blobDir(1)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run 1's checkpoint not pruned: %v", err)
	}
	if _, err := os.Stat(s.blobDir(2)); err != nil {
		t.Errorf("run 2's checkpoint pruned: %v", err)
	}
	if _, err := s.Old(1, info.Changes[0]); !errors.Is(err, ErrNotKept) {
		t.Errorf("pruned checkpoint: %v", err)
	}
}
