package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/tools"
)

func editFileTool() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "edit_file",
		Description: description("edit_file"),
		Risk:        tools.RiskWrite,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["path", "edits"],
	"properties": {
		"path": {"type": "string", "minLength": 1, "maxLength": 4096},
		"edits": {
			"type": "array", "minItems": 1, "maxItems": 50,
			"items": {
				"type": "object",
				"additionalProperties": false,
				"required": ["old_text", "new_text"],
				"properties": {
					"old_text": {"type": "string", "minLength": 1, "maxLength": 1048576},
					"new_text": {"type": "string", "maxLength": 1048576}
				}
			}
		}
	}
}`),
	}, checkEditFile, runEditFile)
}

type editArgs struct {
	Path  string `json:"path"`
	Edits []struct {
		OldText string `json:"old_text"`
		NewText string `json:"new_text"`
	} `json:"edits"`
}

func runEditFile(ctx context.Context, env *tools.Env, a *editArgs) (tools.Result, error) {
	if env.Edits == nil {
		return tools.Fail(tools.CodeUnavailable, "", "file changes are not available in this run", ""), nil
	}
	rel, f := resolveArg(env, "path", a.Path)
	if f != nil {
		return f.Result(), nil
	}
	if f := writeRefusal(rel); f != nil {
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
		return tools.Fail(tools.CodeNotFound, "path", rel+" does not exist", "use write_file to create a new file"), nil
	}
	if isBinary(content) {
		return tools.Fail(tools.CodeInvalidArgs, "path", rel+" is a binary file", "edit_file changes text files only"), nil
	}
	if env.Reads.Stale(rel, content) {
		return staleResult(env, rel), nil
	}
	cur := string(content)
	for i, e := range a.Edits {
		next, f := applyEdit(cur, i, e.OldText, e.NewText)
		if f != nil {
			return f.Result(), nil
		}
		cur = next
	}
	if cur == string(content) {
		return tools.Fail(tools.CodeInvalidArgs, "edits", "the edits leave the file unchanged", "check what you meant to change"), nil
	}
	return propose(ctx, env, &tools.FileChange{Path: rel, Old: content, New: []byte(cur), Tool: "edit_file"})
}

// applyEdit replaces the single occurrence of old in content by new. When
// the file uses CRLF and old does not, old and new are matched in CRLF.
func applyEdit(content string, i int, old, new string) (string, *tools.ToolError) {
	field := fmt.Sprintf("edits.%d", i)
	if old == new {
		return "", failure(tools.CodeInvalidArgs, field+".new_text", "new_text equals old_text, so this edit changes nothing",
			"drop the edit or change new_text")
	}
	n, at := countMatches(content, old)
	if n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(old, "\r") {
		crOld := strings.ReplaceAll(old, "\n", "\r\n")
		if n, at = countMatches(content, crOld); n > 0 {
			old, new = crOld, strings.ReplaceAll(new, "\n", "\r\n")
		}
	}
	switch n {
	case 0:
		reason := "old_text was not found in the file"
		if i > 0 {
			reason += " (as changed by the earlier edits of this call)"
		}
		hint := "read the file again and copy old_text exactly, with its whitespace and indentation and without line numbers"
		if line := looseMatchLine(content, old); line > 0 {
			hint = fmt.Sprintf("text that differs only in whitespace starts at line %d; copy it exactly", line)
		}
		return "", failure(tools.CodeNoMatch, field+".old_text", reason, hint)
	case 1:
		return content[:at] + new + content[at+len(old):], nil
	default:
		return "", failure(tools.CodeAmbiguousMatch, field+".old_text", fmt.Sprintf("old_text matches %d places", n),
			"include more surrounding lines in old_text so that it matches exactly once")
	}
}

// countMatches counts the occurrences of sub in s, overlapping ones too
// ("aa" occurs twice in "aaa"), and returns the offset of the first.
func countMatches(s, sub string) (n, first int) {
	first = -1
	for i := 0; i <= len(s); {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			break
		}
		if first < 0 {
			first = i + j
		}
		n++
		i += j + 1
	}
	return n, first
}

// looseMatchLine returns the 1-based line where the lines of old occur in
// content when leading and trailing whitespace is ignored, or 0.
func looseMatchLine(content, old string) int {
	want := trimmedLines(old)
	if len(want) == 0 {
		return 0
	}
	have := trimmedLines(content)
	for i := 0; i+len(want) <= len(have); i++ {
		if equalLines(have[i:i+len(want)], want) {
			return i + 1
		}
	}
	return 0
}

func trimmedLines(s string) []string {
	lines := splitLines(strings.Trim(s, "\r\n"))
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
