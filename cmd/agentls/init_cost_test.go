package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestInit_Issue16_OurPackagesCompileNothing: every process pays for
// package init before it does anything (a start before its first model
// request, the re-executed sandbox helper), so our packages' init does not
// compile regular expressions or build tables: each allocates at most 100
// times (the tools package compiled three expressions at init, 1,147
// allocations). Counted with GODEBUG=inittrace=1 in this test binary,
// which links every package agentls does, the sandbox's included (the
// shell table was built at init: 704 allocations).
func TestInit_Issue16_OurPackagesCompileNothing(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (github\.com/agentls/agentls/\S+) @.* (\d+) allocs$`)
	seen := 0
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		pkg := m[1]
		if pkg == "github.com/agentls/agentls/cmd/agentls" {
			continue // this package's test variables
		}
		seen++
		if n, _ := strconv.Atoi(m[2]); n > 100 {
			t.Errorf("init of %s allocates %d times, want ≤ 100: compile on first use (sync.OnceValue) or check by hand", pkg, n)
		}
	}
	if seen < 5 {
		t.Fatalf("inittrace shows %d of our packages, want ≥ 5:\n%s", seen, out)
	}
}
