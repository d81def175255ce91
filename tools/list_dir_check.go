package tools

import (
	"cmp"
	"context"
)

// checkListDir is list_dir's static policy step: lists names only.
func checkListDir(_ context.Context, env *Env, a *listDirArgs) (*Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessList), nil
}
