package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/tools"
)

// read_file limits.
const (
	readDefaultLimit = 2000  // lines per call unless the model asks for fewer
	readMaxLineRunes = 2000  // longer lines are cut
	readMaxChars     = 28000 // output budget, under MaxResultChars so nothing is cut in the middle
)

func readFileTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "read_file",
		Description: description("read_file"),
		Risk:        tools.RiskRead,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["path"],
	"properties": {
		"path": {"type": "string", "minLength": 1, "maxLength": 4096},
		"offset": {"type": "integer", "minimum": 1, "maximum": 1000000000},
		"limit": {"type": "integer", "minimum": 1, "maximum": 2000}
	}
}`),
	}, checkReadFile, runReadFile)
}

type readFileArgs struct {
	Path   string `json:"path"`
	Offset intArg `json:"offset,omitempty"`
	Limit  intArg `json:"limit,omitempty"`
}

func runReadFile(ctx context.Context, env *tools.Env, a *readFileArgs) (tools.Result, error) {
	rel, f := resolveArg(env, "path", a.Path)
	if f != nil {
		return f.Result(), nil
	}
	content, exists, f, err := loadFile(ctx, env, rel)
	if err != nil {
		return tools.Result{}, err
	}
	if f != nil {
		return f.Result(), nil
	}
	if !exists {
		return notFound(rel).Result(), nil
	}
	if isBinary(content) {
		return tools.Result{Content: fmt.Sprintf("binary file, %d bytes", len(content))}, nil
	}
	env.Reads.Record(rel, content)
	lines := splitLines(string(content))
	if len(lines) == 0 {
		return tools.Result{Content: "(empty file)"}, nil
	}
	offset, limit := max(int(a.Offset), 1), int(a.Limit)
	if limit <= 0 {
		limit = readDefaultLimit
	}
	if offset > len(lines) {
		return tools.Fail(tools.CodeInvalidArgs, "offset", fmt.Sprintf("offset %d is past the end: %s has %d lines", offset, rel, len(lines)),
			"use an offset between 1 and the line count"), nil
	}
	return tools.Result{Content: numberLines(lines, offset, limit)}, nil
}

// numberLines renders lines[offset-1:] like cat -n, within limit lines and
// the output budget, and says where the next page starts.
func numberLines(lines []string, offset, limit int) string {
	var b strings.Builder
	end := offset - 1 // last line written, 1-based
	budgetHit := false
	for i := offset - 1; i < len(lines) && i < offset-1+limit; i++ {
		line := fmt.Sprintf("%6d\t%s\n", i+1, cutLine(lines[i]))
		if b.Len()+len(line) > readMaxChars && end >= offset {
			budgetHit = true
			break
		}
		b.WriteString(line)
		end = i + 1
	}
	switch {
	case end < len(lines) && budgetHit:
		fmt.Fprintf(&b, "(lines %d-%d of %d; output limit reached; continue with offset=%d)", offset, end, len(lines), end+1)
	case end < len(lines):
		fmt.Fprintf(&b, "(lines %d-%d of %d; continue with offset=%d)", offset, end, len(lines), end+1)
	default:
		fmt.Fprintf(&b, "(lines %d-%d of %d)", offset, end, len(lines))
	}
	return b.String()
}

// splitLines splits text into lines without their terminators ("\n" or
// "\r\n"); a final newline does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func cutLine(s string) string {
	if len(s) <= readMaxLineRunes {
		return s
	}
	c := cut(s, readMaxLineRunes)
	if c == s {
		return s
	}
	return c + " [line cut]"
}
