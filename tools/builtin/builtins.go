package builtin

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

//go:embed descriptions/*.md
var descriptions embed.FS

// All returns fresh definitions of the built-in tools (B1), ready
// for [Registry.MustRegister].
func All() []*tools.Tool {
	return []*tools.Tool{readFileTool(), listDirTool(), searchTool(), editFileTool(), writeFileTool(), reportFindingTool(), humanConfirmTool(), RunCommand(), SQLQuery(), HTTPFetch(), Calculator()}
}

// Limits shared by the built-in tools.
const (
	maxFileBytes   = sandbox.MaxFileBytes // the largest file read_file, edit_file and write_file load
	binarySniffLen = 8 << 10              // how much of a file decides whether it is binary
)

// description returns the embedded description of the tool name.
func description(name string) string {
	b, err := descriptions.ReadFile("descriptions/" + name + ".md")
	if err != nil {
		panic("tools: no description for " + name) // a build-time mistake
	}
	return strings.TrimSpace(string(b))
}

// intArg is an integer argument. JSON Schema counts 3.0 and 1e2 as
// integers, encoding/json does not; the schema bounds the value first.
type intArg int

func (n *intArg) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return fmt.Errorf("%s is not an integer", b)
	}
	*n = intArg(f)
	return nil
}

// resolveArg checks a model-given path with the sandbox path policy (T4)
// and returns the workspace-relative path to use from then on.
func resolveArg(env *tools.Env, field, p string) (string, *tools.ToolError) {
	if env.Root == "" {
		return "", &tools.ToolError{Code: tools.CodeUnavailable, Reason: "no workspace is open", Rule: "path.no_workspace", Subject: p}
	}
	rel, err := sandbox.ResolvePath(env.Root, p)
	if pe, ok := errors.AsType[*sandbox.PolicyError](err); ok {
		return "", tools.PolicyRefusal(pe, field)
	}
	if err != nil {
		return "", &tools.ToolError{Code: tools.CodeInternal, Field: field, Reason: "the path could not be checked", Rule: "path.check_failed", Subject: p}
	}
	return rel, nil
}

// inGitDir reports whether rel lies in a .git directory, where a write can
// run code (hooks, config).
func inGitDir(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// openRoot opens the workspace as a [sandbox.Root].
func openRoot(env *tools.Env) (*sandbox.Root, *tools.ToolError) {
	if env.Root == "" {
		return nil, failure(tools.CodeUnavailable, "", "no workspace is open", "")
	}
	root, err := sandbox.OpenRoot(env.Root)
	if err != nil {
		return nil, failure(tools.CodeUnavailable, "", "the workspace cannot be opened", "")
	}
	return root, nil
}

// loadFile returns the content of the file rel as the user sees it. The
// disk entry is checked through the sandbox first, so a directory, FIFO
// or device is refused before anything could block on it. exists is false
// when neither the disk nor an editor buffer has the file; the caller
// decides whether that is an error.
func loadFile(ctx context.Context, env *tools.Env, rel string) (content []byte, exists bool, fail *tools.ToolError, err error) {
	if env.Workspace == nil {
		return nil, false, failure(tools.CodeUnavailable, "", "file reading is not available in this run", ""), nil
	}
	root, f := openRoot(env)
	if f != nil {
		return nil, false, f, nil
	}
	fi, serr := root.Stat(rel)
	root.Close()
	switch {
	case serr == nil && fi.IsDir():
		return nil, false, failure(tools.CodeInvalidArgs, "path", rel+" is a directory", "use list_dir for directories"), nil
	case serr == nil && !fi.Mode().IsRegular():
		return nil, false, failure(tools.CodeInvalidArgs, "path", rel+" is not a regular file (a FIFO, device or socket)", ""), nil
	case serr == nil && fi.Size() > maxFileBytes:
		return nil, false, failure(tools.CodeResourceLimit, "path", fmt.Sprintf("%s has %d bytes; the limit is %d", rel, fi.Size(), maxFileBytes),
			"use search to find the part you need"), nil
	case serr != nil && !errors.Is(serr, fs.ErrNotExist):
		return nil, false, failure(tools.CodeInvalidArgs, "path", "cannot access "+rel+": "+errReason(serr), ""), nil
	}
	b, rerr := env.Workspace.ReadFile(ctx, rel)
	switch {
	case rerr == nil:
		return b, true, nil, nil
	case ctx.Err() != nil:
		return nil, false, nil, ctx.Err()
	case errors.Is(rerr, fs.ErrNotExist):
		return nil, false, nil, nil
	case errors.Is(rerr, sandbox.ErrTooLarge): // an editor buffer over the limit
		return nil, false, failure(tools.CodeResourceLimit, "path", fmt.Sprintf("%s is too large to load; the limit is %d bytes", rel, maxFileBytes),
			"use search to find the part you need"), nil
	}
	return nil, false, failure(tools.CodeInvalidArgs, "path", "cannot read "+rel+": "+errReason(rerr), ""), nil
}

// notFound is the error for a file that does not exist.
func notFound(rel string) *tools.ToolError {
	return failure(tools.CodeNotFound, "path", rel+" does not exist", "check the path with list_dir or search")
}

// errReason is the innermost message of err, without the path an
// *fs.PathError adds, so no host path reaches the model.
func errReason(err error) string {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err.Error()
	}
	return "i/o error"
}

// isBinary reports whether b looks like binary data: a NUL byte or invalid
// UTF-8 in its first 8 KB.
func isBinary(b []byte) bool {
	if len(b) > binarySniffLen {
		b = b[:binarySniffLen]
		// Do not count a rune cut at the sniff boundary as invalid.
		if i := lastRuneStart(b); !utf8.FullRune(b[i:]) {
			b = b[:i]
		}
	}
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

func lastRuneStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// displayName quotes a file name that holds control characters or invalid
// UTF-8, so it cannot break the line-oriented output or spoof lines.
func displayName(name string) string {
	if !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return strconv.Quote(name)
	}
	return name
}

// joinRel joins a workspace-relative directory and a name.
func joinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return path.Join(dir, name)
}

// failure is the tool error with code about field.
func failure(code tools.Code, field, reason, recovery string) *tools.ToolError {
	return &tools.ToolError{Code: code, Field: field, Reason: reason, Recovery: recovery}
}
