package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSpill_A15(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".agentls", "results")
	small := strings.Repeat("x", 100)
	if s, p, err := spillLarge(dir, small, 0); s != small || p != "" || err != nil {
		t.Errorf("small result: %q %q %v", s, p, err)
	}
	var big strings.Builder
	for i := 0; big.Len() < 100000; i++ {
		fmt.Fprintf(&big, "line %d ünïcödé\n", i)
	}
	summary, path, err := spillLarge(dir, big.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != big.String() {
		t.Fatalf("spilled file: %d bytes, %v", len(b), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if utf8.RuneCountInString(summary) > MaxResultChars/3 || !utf8.ValidString(summary) {
		t.Errorf("summary has %d characters", utf8.RuneCountInString(summary))
	}
	for _, want := range []string{"line 0 ", path, "read_file", "lines)"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if !strings.HasSuffix(summary, lastRunes(big.String(), 100)) {
		t.Error("summary lacks the tail")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".result-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A directory that cannot be created: the summary still comes back.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	s, p, err := spillLarge(filepath.Join(blocker, "sub"), big.String(), 0)
	if err == nil || p != "" || !strings.Contains(s, "could not be saved") {
		t.Errorf("unwritable dir: %q, %v", p, err)
	}
}
