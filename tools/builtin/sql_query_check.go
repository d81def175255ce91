package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sqlguard"
	"github.com/agentls/agentls/tools"
)

// checkSQLQuery is the static step (T4-T6): the database path inside the
// workspace and the query read-only, without opening anything.
func checkSQLQuery(_ context.Context, env *tools.Env, a *sqlQueryArgs) (*tools.Verdict, error) {
	v, _, _ := sqlCheck(env, a)
	return v, nil
}

// sqlCheck returns the verdict on a and, when it allows, the database's
// workspace-relative path; a deny comes with its refusal.
func sqlCheck(env *tools.Env, a *sqlQueryArgs) (*tools.Verdict, string, *tools.ToolError) {
	rel, refusal := resolveArg(env, "database", a.Database)
	if refusal != nil {
		refusal.Recovery = "name an SQLite file inside the workspace, relative to its root"
		return refusal.Verdict(), "", refusal
	}
	subject := rel + ": " + oneLine(a.Query, 200)
	info, err := sqlguard.Analyze(a.Query)
	if err != nil {
		pe, ok := errors.AsType[*sandbox.PolicyError](err)
		if !ok {
			pe = &sandbox.PolicyError{Rule: sqlguard.RuleNotReadOnly, Reason: "the query is not one read-only statement"}
		}
		refusal := tools.PolicyRefusal(pe, "query")
		refusal.Subject = subject
		return refusal.Verdict(), "", refusal
	}
	preview := fmt.Sprintf("read-only %s query on %s", info.Kind, rel)
	if len(info.Tables) > 0 {
		preview += "\nreads: " + oneLine(strings.Join(info.Tables, ", "), 300)
	}
	preview += "\n" + oneLine(info.Statement, 1000)
	return &tools.Verdict{Decision: tools.Allow, Rule: "sql.read_only", Subject: subject, Preview: preview}, rel, nil
}
