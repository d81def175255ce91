package tools

import (
	"cmp"
	"context"
)

// checkSearch is search's static policy step: reads the content of what it searches (the workspace root when path is unset).
func checkSearch(_ context.Context, env *Env, a *searchArgs) (*Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessRead), nil
}
