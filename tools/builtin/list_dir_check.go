package builtin

import (
	"cmp"
	"context"

	"github.com/agentls/agentls/tools"
)

// checkListDir is list_dir's static policy step: lists names only.
func checkListDir(_ context.Context, env *tools.Env, a *listDirArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessList), nil
}
