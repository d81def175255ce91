package tools

import (
	"cmp"
	"context"
)

// checkReportFinding is report_finding's static policy step: names a line of its path; it reads nothing.
func checkReportFinding(_ context.Context, env *Env, a *reportFindingArgs) (*Verdict, error) {
	return checkPath(env, "path", cmp.Or(a.Path, "."), accessList), nil
}
