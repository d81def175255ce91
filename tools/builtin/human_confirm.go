package builtin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/tools"
)

// humanConfirmTool lets the model ask the user itself (T16). The answer is
// structured: approve, deny, or modify with the user's edited text. The
// question goes through the gateway's approvals, so it has the same
// timeout as every other question and no answer in time is a deny.
func humanConfirmTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "human_confirm",
		Description: description("human_confirm"),
		Risk:        tools.RiskNone,
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

func runHumanConfirm(ctx context.Context, env *tools.Env, a *humanConfirmArgs) (tools.Result, error) {
	ans, ok := env.Call.Ask(ctx, &tools.ApprovalRequest{Tool: "human_confirm", Risk: tools.RiskNone, Question: a.Question, Text: a.Text})
	if !ok {
		return tools.Fail(tools.CodeApprovalRequired, "", "nobody can answer questions in this run", "decide without asking, conservatively"), nil
	}
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	out := struct {
		Answer tools.Answer `json:"answer"`
		Text   string       `json:"text,omitempty"`
	}{Answer: tools.AnswerDeny}
	switch {
	case ans.Answer == tools.AnswerApprove || ans.Answer == tools.AnswerAlways:
		out.Answer, out.Text = tools.AnswerApprove, a.Text
	case ans.Answer == tools.AnswerModify:
		out.Answer, out.Text = tools.AnswerModify, ans.Text
	}
	b, err := json.Marshal(out)
	if err != nil {
		return tools.Result{}, fmt.Errorf("human_confirm: %w", err)
	}
	return tools.Result{Content: string(b)}, nil
}
