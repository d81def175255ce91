package tools

import (
	"cmp"
	"context"
)

// checkEditFile is edit_file's static policy step: writes its path.
func checkEditFile(_ context.Context, env *Env, a *editArgs) (*Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessWrite), nil
}
