package builtin

import (
	"github.com/agentls/agentls/tools"

	"cmp"
	"context"
)

// checkEditFile is edit_file's static policy step: writes its path.
func checkEditFile(_ context.Context, env *tools.Env, a *editArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessWrite), nil
}
