package tools

import (
	"cmp"
	"context"
)

// checkWriteFile is write_file's static policy step: writes its path.
func checkWriteFile(_ context.Context, env *Env, a *writeFileArgs) (*Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessWrite), nil
}
