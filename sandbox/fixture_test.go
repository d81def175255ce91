package sandbox

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// setupOp is one extra fixture operation, run inside the root.
type setupOp struct {
	Op     string `json:"op"` // symlink, hardlink, mkfifo
	Link   string `json:"link"`
	Target string `json:"target"`
	Path   string `json:"path"`
}

// apply runs ops in fx.
func apply(t testing.TB, fx sandboxtest.Fixture, ops ...setupOp) {
	t.Helper()
	for _, op := range ops {
		switch op.Op {
		case "symlink":
			link := filepath.Join(fx.Root, op.Link)
			sandboxtest.MustMkdir(t, filepath.Dir(link))
			if err := os.Symlink(fx.Expand(op.Target), link); err != nil {
				t.Fatal(err)
			}
		case "hardlink":
			target := fx.Expand(op.Target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(fx.Root, target)
			}
			if err := os.Link(target, filepath.Join(fx.Root, op.Link)); err != nil {
				t.Fatal(err)
			}
		case "mkfifo":
			sandboxtest.Mkfifo(t, filepath.Join(fx.Root, op.Path))
		default:
			t.Fatalf("unknown setup op %q", op.Op)
		}
	}
}

// policyCase is one line of testdata/paths.jsonl.
type policyCase struct {
	Path     string    `json:"path"`
	Expect   string    `json:"expect"` // inside or outside
	Why      string    `json:"why"`
	Category string    `json:"category"`
	Op       string    `json:"op"`
	Soft     bool      `json:"soft"`
	Setup    []setupOp `json:"setup"`
}

func loadPolicyCases(t testing.TB) []policyCase {
	t.Helper()
	f, err := os.Open("testdata/paths.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []policyCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c policyCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("paths.jsonl: %v", err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestResolvePath_T4_PolicyExamples runs every labelled case of the shared
// paths.jsonl on a fresh fixture. An "inside" answer where "outside" was
// expected is an unsafe miss and always fails; over-blocking fails unless
// the case is soft.
func TestResolvePath_T4_PolicyExamples(t *testing.T) {
	cases := loadPolicyCases(t)
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/paths.jsonl")
	}
	for i, c := range cases {
		name := c.Category + "/" + strings.Map(safeRune, c.Path)
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			fx := sandboxtest.NewFixture(t)
			apply(t, fx, c.Setup...)
			rel, err := ResolvePath(fx.Root, fx.Expand(c.Path))
			inside := err == nil
			if err != nil {
				checkPolicyError(t, err, fx)
			}
			switch want := c.Expect == "inside"; {
			case inside == want:
			case c.Soft:
				t.Logf("soft case %d answered inside=%v against the label (acceptable): %v", i, inside, err)
			case inside:
				t.Errorf("UNSAFE MISS (case %d, %s, %s): accepted as %q; %s", i, c.Op, c.Category, rel, c.Why)
			default:
				t.Errorf("over-blocking (case %d): %v; %s", i, err, c.Why)
			}
		})
	}
}

// checkPolicyError checks that err is a *PolicyError whose Rule is known and
// whose Reason does not leak the outside directory.
func checkPolicyError(t testing.TB, err error, fx sandboxtest.Fixture) {
	t.Helper()
	pe, ok := err.(*PolicyError)
	if !ok {
		t.Fatalf("error %v (%T) is not a *PolicyError", err, err)
	}
	switch pe.Rule {
	case RuleOutsideRoot, RuleInvalidPath, RuleHomePath, RuleSymlinkDotDot:
	default:
		t.Errorf("unknown rule %q", pe.Rule)
	}
	if strings.Contains(pe.Reason, fx.Outside) || strings.Contains(pe.Reason, fx.Root) {
		t.Errorf("reason leaks a host path: %q", pe.Reason)
	}
}

func safeRune(r rune) rune {
	if r < 0x20 || r == 0x7f || r == '/' {
		return '_'
	}
	return r
}
