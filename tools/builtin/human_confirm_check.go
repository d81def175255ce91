package builtin

import (
	"context"

	"github.com/agentls/agentls/tools"
)

// checkHumanConfirm allows the question: asking the user touches nothing,
// and the question is the subject.
func checkHumanConfirm(_ context.Context, _ *tools.Env, a *humanConfirmArgs) (*tools.Verdict, error) {
	return &tools.Verdict{Decision: tools.Allow, Rule: "human_confirm", Subject: a.Question}, nil
}
