package builtin

import (
	"cmp"
	"context"

	"github.com/agentls/agentls/tools"
)

// checkEditFile is edit_file's static policy step: writes its path.
func checkEditFile(_ context.Context, env *tools.Env, a *editArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessWrite), nil
}
