package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// humanConfirmTool lets the model ask the user itself (T16). The answer is
// structured: approve, deny, or modify with the user's edited text. The
// question goes through the gateway's approvals, so it has the same
// timeout as every other question and no answer in time is a deny.
func humanConfirmTool() *Tool {
	return New(Tool{
		Name:        "human_confirm",
		Description: description("human_confirm"),
		Risk:        RiskNone,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["question"],
	"properties": {
		"question": {"type": "string", "minLength": 1, "maxLength": 2000},
		"text": {"type": "string", "maxLength": 20000, "description": "text the user may edit"}
	}
}`),
	}, checkHumanConfirm, runHumanConfirm)
}

type humanConfirmArgs struct {
	Question string `json:"question"`
	Text     string `json:"text,omitempty"`
}

func runHumanConfirm(ctx context.Context, env *Env, a *humanConfirmArgs) (Result, error) {
	ans, ok := env.Call.Ask(ctx, &ApprovalRequest{Tool: "human_confirm", Risk: RiskNone, Question: a.Question, Text: a.Text})
	if !ok {
		return Fail(CodeApprovalRequired, "", "nobody can answer questions in this run", "decide without asking, conservatively"), nil
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	out := struct {
		Answer Answer `json:"answer"`
		Text   string `json:"text,omitempty"`
	}{Answer: AnswerDeny}
	switch {
	case ans.Answer == AnswerApprove || ans.Answer == AnswerAlways:
		out.Answer, out.Text = AnswerApprove, a.Text
	case ans.Answer == AnswerModify:
		out.Answer, out.Text = AnswerModify, ans.Text
	}
	b, err := json.Marshal(out)
	if err != nil {
		return Result{}, fmt.Errorf("human_confirm: %w", err)
	}
	return Result{Content: string(b)}, nil
}
