package builtin

import (
	"cmp"
	"context"

	"github.com/agentls/agentls/tools"
)

// checkSearch is search's static policy step: reads the content of what it searches (the workspace root when path is unset).
func checkSearch(_ context.Context, env *tools.Env, a *searchArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessRead), nil
}
