package tools

import (
	"context"
)

// checkHumanConfirm allows the question: asking the user touches nothing,
// and the question is the subject.
func checkHumanConfirm(_ context.Context, _ *Env, a *humanConfirmArgs) (*Verdict, error) {
	return &Verdict{Decision: Allow, Rule: "human_confirm", Subject: a.Question}, nil
}
