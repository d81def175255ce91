package builtin

import (
	"cmp"
	"context"

	"github.com/agentls/agentls/tools"
)

// checkReadFile is read_file's static policy step: reads its path: content, so a secret-looking file is asked about.
func checkReadFile(_ context.Context, env *tools.Env, a *readFileArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessRead), nil
}
