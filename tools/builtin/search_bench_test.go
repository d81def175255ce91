package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// BenchmarkSearch_B1 searches the tree testdata/searchgen writes, named by
// AGENTLS_SEARCH_TREE (testdata/bench/search.sh builds one), for a literal
// with no hit and an anchored expression: through a workspace that says
// which files have buffers (disk reads through directory handles) and
// through one that cannot (every file read through the workspace, as
// lspserver's until it implements Buffered). With -cpuprofile it shows
// where the time goes.
func BenchmarkSearch_B1(b *testing.B) {
	dir := os.Getenv("AGENTLS_SEARCH_TREE")
	if dir == "" {
		b.Skip("set AGENTLS_SEARCH_TREE to a tree from go run ./testdata/searchgen")
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		b.Fatal(err)
	}
	disk := tools.DiskWorkspace(root)
	for _, ws := range []struct {
		name string
		ws   tools.Workspace
	}{{"disk", disk}, {"unbuffered", plainDisk{disk}}} {
		for _, c := range []struct{ name, pattern string }{
			{"literal-no-hit", "NOWHERE_TO_BE_FOUND_0xfeed"}, {"anchored", `^func Bench[a-z]+[0-9]+\(`},
		} {
			b.Run(ws.name+"/"+c.name, func(b *testing.B) {
				env := &tools.Env{Root: root, Workspace: ws.ws}
				for b.Loop() {
					res, err := runSearch(b.Context(), env, &searchArgs{Pattern: c.pattern})
					if err != nil || res.IsError || strings.HasPrefix(res.Content, "(stopped") {
						b.Fatalf("%v %+v", err, res)
					}
				}
			})
		}
	}
}

// plainDisk is the disk workspace without Buffered.
type plainDisk struct{ w tools.Workspace }

func (p plainDisk) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	return p.w.ReadFile(ctx, rel)
}
