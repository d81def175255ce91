package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentls/agentls/tools"
)

// listMaxEntries bounds one list_dir answer.
const listMaxEntries = 500

func listDirTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "list_dir",
		Description: description("list_dir"),
		Risk:        tools.RiskRead,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["path"],
	"properties": {
		"path": {"type": "string", "minLength": 1, "maxLength": 4096}
	}
}`),
	}, checkListDir, runListDir)
}

type listDirArgs struct {
	Path string `json:"path"`
}

func runListDir(ctx context.Context, env *tools.Env, a *listDirArgs) (tools.Result, error) {
	rel, f := resolveArg(env, "path", a.Path)
	if f != nil {
		return f.Result(), nil
	}
	root, f := openRoot(env)
	if f != nil {
		return f.Result(), nil
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Fail(tools.CodeNotFound, "path", rel+" does not exist", "list the parent directory"), nil
	case err != nil:
		return tools.Fail(tools.CodeInvalidArgs, "path", "cannot access "+rel+": "+errReason(err), ""), nil
	case !fi.IsDir():
		return tools.Fail(tools.CodeInvalidArgs, "path", rel+" is a file, not a directory", "use read_file for files"), nil
	}
	ents, err := root.ReadDir(rel)
	if err != nil {
		return tools.Fail(tools.CodeInvalidArgs, "path", "cannot list "+rel+": "+errReason(err), ""), nil
	}
	if len(ents) == 0 {
		return tools.Result{Content: "(empty directory)"}, nil
	}
	var b strings.Builder
	for i, e := range ents {
		if i == listMaxEntries {
			fmt.Fprintf(&b, "(%d of %d entries shown; list a subdirectory or use search)\n", listMaxEntries, len(ents))
			break
		}
		b.WriteString(displayName(e.Name()))
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return tools.Result{Content: strings.TrimSuffix(b.String(), "\n")}, nil
}
