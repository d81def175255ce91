package builtin

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/tools"
)

func writeFileTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "write_file",
		Description: description("write_file"),
		Risk:        tools.RiskWrite,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["path", "content"],
	"properties": {
		"path": {"type": "string", "minLength": 1, "maxLength": 4096},
		"content": {"type": "string", "maxLength": 1048576}
	}
}`),
	}, checkWriteFile, runWriteFile)
}

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func runWriteFile(ctx context.Context, env *tools.Env, a *writeFileArgs) (tools.Result, error) {
	if env.Edits == nil {
		return tools.Fail(tools.CodeUnavailable, "", "file changes are not available in this run", ""), nil
	}
	rel, f := resolveArg(env, "path", a.Path)
	if f != nil {
		return f.Result(), nil
	}
	if rel == "." {
		return tools.Fail(tools.CodeInvalidArgs, "path", "the path is the workspace root", "name a file"), nil
	}
	if f := writeRefusal(rel); f != nil {
		return f.Result(), nil
	}
	old, exists, f, err := loadFile(ctx, env, rel)
	if err != nil {
		return tools.Result{}, err
	}
	if f != nil {
		return f.Result(), nil
	}
	if exists && env.Reads.Stale(rel, old) {
		return staleResult(env, rel), nil
	}
	if exists && string(old) == a.Content {
		return tools.Result{Content: rel + " already has this content; nothing to change"}, nil
	}
	change := &tools.FileChange{Path: rel, New: []byte(a.Content), Create: !exists, Tool: "write_file"}
	if exists {
		change.Old = old
	}
	return propose(ctx, env, change)
}
