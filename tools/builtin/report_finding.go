package builtin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/tools"
)

func reportFindingTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "report_finding",
		Description: description("report_finding"),
		Risk:        tools.RiskNone,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["path", "line", "severity", "message"],
	"properties": {
		"path": {"type": "string", "minLength": 1, "maxLength": 4096},
		"line": {"type": "integer", "minimum": 1, "maximum": 1000000000},
		"end_line": {"type": "integer", "minimum": 1, "maximum": 1000000000},
		"severity": {"type": "string", "enum": ["error", "warning", "info", "hint"]},
		"message": {"type": "string", "minLength": 1, "maxLength": 2000}
	}
}`),
	}, checkReportFinding, runReportFinding)
}

type reportFindingArgs struct {
	Path     string `json:"path"`
	Line     intArg `json:"line"`
	EndLine  intArg `json:"end_line,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func runReportFinding(ctx context.Context, env *tools.Env, a *reportFindingArgs) (tools.Result, error) {
	if env.Findings == nil {
		return tools.Fail(tools.CodeUnavailable, "", "findings are not collected in this run", ""), nil
	}
	rel, f := resolveArg(env, "path", a.Path)
	if f != nil {
		return f.Result(), nil
	}
	if a.EndLine != 0 && a.EndLine < a.Line {
		return tools.Fail(tools.CodeInvalidArgs, "end_line", "end_line is before line", "set end_line >= line, or leave it out"), nil
	}
	err := env.Findings.Report(ctx, tools.Finding{
		Path: rel, Line: int(a.Line), EndLine: int(a.EndLine), Severity: a.Severity, Message: a.Message,
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Fail(tools.CodeInvalidArgs, "", "the finding was not recorded: "+cut(err.Error(), 300),
			"check the path and line numbers with read_file"), nil
	}
	loc := fmt.Sprintf("%s:%d", rel, a.Line)
	if a.EndLine > a.Line {
		loc += fmt.Sprintf("-%d", a.EndLine)
	}
	return tools.Result{Content: "finding recorded at " + loc}, nil
}
