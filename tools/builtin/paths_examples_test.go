package builtin

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestGateway_T4_PolicyExamples asks the shared labelled path cases the way
// `agentls vet` does: read_file {"path"} for op read, write_file {"path",
// "content"} for op write, through the whole gateway. An "outside" case
// must end in path_outside_root with nothing read or proposed; an "inside"
// case must not (it may still fail later, e.g. not_found). Soft cases may
// go either way.
func TestGateway_T4_PolicyExamples(t *testing.T) {
	f, err := os.Open("../../sandbox/testdata/paths.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var c struct {
			Path, Expect, Why, Category, Op string
			Soft                            bool
			Setup                           []struct{ Op, Link, Target, Path string }
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		t.Run(c.Category+"/"+c.Op, func(t *testing.T) {
			h := newHarness(t)
			for _, d := range []string{filepath.Join(h.root, ".git/hooks"), filepath.Join(h.root, "docs"), filepath.Join(h.outside, "sub")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			expand := strings.NewReplacer("{{ROOT}}", h.root, "{{OUTSIDE}}", h.outside,
				"{{ROOTNAME}}", filepath.Base(h.root)).Replace
			for _, op := range c.Setup {
				switch op.Op {
				case "symlink":
					h.symlink(t, op.Link, expand(op.Target))
				case "hardlink":
					err = os.Link(expand(op.Target), filepath.Join(h.root, op.Link))
				case "mkfifo":
					mkfifo(t, filepath.Join(h.root, op.Path))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			args := map[string]string{"path": expand(c.Path)}
			tool := "read_file"
			if c.Op == "write" {
				tool, args["content"] = "write_file", "x"
			}
			res := h.call(t, tool, args)
			refused := res.IsError && res.Code == tools.CodePathOutsideRoot
			switch {
			case refused == (c.Expect == "outside"):
			case c.Soft:
				t.Logf("soft case answered against the label: %s", res.Content)
			case !refused:
				t.Errorf("UNSAFE MISS %q (%s): %s", c.Path, c.Why, res.Content)
			default:
				t.Errorf("over-blocking %q (%s): %s", c.Path, c.Why, res.Content)
			}
			if refused && (len(h.ws.reads) > 0 || len(h.edits.changes) > 0) {
				t.Error("a refused call read or proposed something")
			}
			if strings.Contains(res.Content, "TOP SECRET") {
				t.Error("outside content reached the model")
			}
		})
	}
	if n == 0 {
		t.Fatal("no cases")
	}
}
