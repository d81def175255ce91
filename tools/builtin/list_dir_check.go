package builtin

import (
	"github.com/agentls/agentls/tools"

	"cmp"
	"context"
)

// checkListDir is list_dir's static policy step: lists names only.
func checkListDir(_ context.Context, env *tools.Env, a *listDirArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessList), nil
}
