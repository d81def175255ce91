package builtin

import (
	"context"

	"github.com/agentls/agentls/tools"
)

// checkCalculator allows arithmetic, which touches nothing. A bad
// expression is the model's to fix, refused with the field (T11) by the
// check already, so vet says what a run does (T18; issue 22 item 9).
func checkCalculator(_ context.Context, _ *tools.Env, a *calculatorArgs) (*tools.Verdict, error) {
	if _, err := Calculate(a.Expression); err != nil {
		return &tools.Verdict{Decision: tools.Deny, Code: tools.CodeInvalidArgs, Field: "expression", Rule: "calc.not_arithmetic",
			Reason: err.Error(), Subject: a.Expression, Recovery: calcRecovery}, nil
	}
	return &tools.Verdict{Decision: tools.Allow, Rule: "calc.arithmetic", Subject: a.Expression}, nil
}
