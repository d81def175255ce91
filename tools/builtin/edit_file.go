package builtin

import (
	"bytes"
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
	// Each edit builds the next text in one buffer of its size from the
	// one before; the file as read is never copied: a one-line edit of a
	// 10 MiB file holds the old text and the new, 20 MiB (issue 27 item 2).
	cur := content
	for i, e := range a.Edits {
		next, f := applyEdit(cur, i, e.OldText, e.NewText)
		if f != nil {
			return f.Result(), nil
		}
		cur = next
	}
	if bytes.Equal(cur, content) {
		return tools.Fail(tools.CodeInvalidArgs, "edits", "the edits leave the file unchanged", "check what you meant to change"), nil
	}
	return propose(ctx, env, &tools.FileChange{Path: rel, Old: content, New: cur, Tool: "edit_file"})
}

// applyEdit returns a new buffer: content with the single occurrence of
// old replaced by new. When the file uses CRLF and old does not, old and
// new are matched in CRLF. content itself is never written.
func applyEdit(content []byte, i int, old, new string) ([]byte, *tools.ToolError) {
	field := fmt.Sprintf("edits.%d", i)
	if old == new {
		return nil, failure(tools.CodeInvalidArgs, field+".new_text", "new_text equals old_text, so this edit changes nothing",
			"drop the edit or change new_text")
	}
	n, at := countMatches(content, old)
	if n == 0 && bytes.Contains(content, []byte("\r\n")) && !strings.Contains(old, "\r") {
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
		if line := looseMatchLine(string(content), old); line > 0 {
			hint = fmt.Sprintf("text that differs only in whitespace starts at line %d; copy it exactly", line)
		}
		return nil, failure(tools.CodeNoMatch, field+".old_text", reason, hint)
	case 1:
		next := make([]byte, 0, len(content)-len(old)+len(new))
		next = append(next, content[:at]...)
		next = append(next, new...)
		return append(next, content[at+len(old):]...), nil
	default:
		return nil, failure(tools.CodeAmbiguousMatch, field+".old_text", fmt.Sprintf("old_text matches %d places", n),
			"include more surrounding lines in old_text so that it matches exactly once")
	}
}

// countMatches counts the occurrences of sub in s, overlapping ones too
// ("aa" occurs twice in "aaa"), and returns the offset of the first.
func countMatches(s []byte, sub string) (n, first int) {
	first = -1
	b := []byte(sub)
	for i := 0; i <= len(s); {
		j := bytes.Index(s[i:], b)
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
