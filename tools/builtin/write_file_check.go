package builtin

import (
	"cmp"
	"context"

	"github.com/agentls/agentls/tools"
)

// checkWriteFile is write_file's static policy step: writes its path.
func checkWriteFile(_ context.Context, env *tools.Env, a *writeFileArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessWrite), nil
}
