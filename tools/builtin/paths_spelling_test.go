package builtin

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestFileTools_T4_MeantDifferently: a path starting with ~ or ~user, or
// with ".." after a symlink, is refused by every file tool with a clear
// reason and recovery, instead of being read or written as spelled. Before
// the fix read_file ~/x read a workspace directory named "~", and
// link/../README.md read the workspace README while the kernel would open
// the file next to the link's target.
func TestFileTools_T4_MeantDifferently(t *testing.T) {
	h := newHarness(t)
	h.write(t, "~/notes.txt", "a directory named ~\n")
	h.write(t, "docs/sub/README.md", "next to the target\n")
	h.symlink(t, "deep", "docs/sub")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "~/notes.txt"}, "~ is not expanded"},
		{"read_file", map[string]any{"path": "~root/.bashrc"}, "~ is not expanded"},
		{"list_dir", map[string]any{"path": "~"}, "~ is not expanded"},
		{"write_file", map[string]any{"path": "~/.bashrc", "content": "x"}, "~ is not expanded"},
		{"read_file", map[string]any{"path": "deep/../README.md"}, `".." after a symlink`},
		{"write_file", map[string]any{"path": "deep/../x.txt", "content": "x"}, `".." after a symlink`},
		{"search", map[string]any{"pattern": "x", "path": "deep/../src"}, `".." after a symlink`},
	} {
		res := h.call(t, c.tool, c.args)
		te := wantErr(t, res, tools.CodePathOutsideRoot, "*")
		if !strings.Contains(te.Recovery, c.want) && !strings.Contains(te.Reason, c.want) {
			t.Errorf("%s %v: reason %q, recovery %q; want %q", c.tool, c.args, te.Reason, te.Recovery, c.want)
		}
	}
	wantContains(t, wantOK(t, h.call(t, "read_file", map[string]any{"path": "src/../README.md"})), "# demo")
}
