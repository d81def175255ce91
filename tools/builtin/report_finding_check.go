package builtin

import (
	"cmp"
	"context"

	"github.com/agentls/agentls/tools"
)

// checkReportFinding is report_finding's static policy step: names a line of its path; it reads nothing.
func checkReportFinding(_ context.Context, env *tools.Env, a *reportFindingArgs) (*tools.Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessList), nil
}
