package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// CheckFinding checks a review finding against the workspace at root
// (E5), as every front-end's [FindingSink] does before it shows one: its
// file resolves inside the workspace and can be read through ws, its
// lines exist, and an unknown severity becomes "warning". It returns the
// finding with a workspace-relative path and its file's content, or why it
// is dropped (the tool's error to the model).
func CheckFinding(ctx context.Context, root string, ws Workspace, fd Finding) (Finding, []byte, error) {
	rel, err := sandbox.ResolvePath(root, fd.Path)
	if err != nil {
		return fd, nil, fmt.Errorf("%s is not a file in the workspace", fd.Path)
	}
	content, err := ws.ReadFile(ctx, rel)
	if err != nil {
		return fd, nil, fmt.Errorf("%s cannot be read", rel)
	}
	lines := strings.Count(string(content), "\n")
	if len(content) > 0 && !strings.HasSuffix(string(content), "\n") {
		lines++
	}
	if fd.Line < 1 || fd.Line > lines {
		return fd, nil, fmt.Errorf("%s has %d lines; line %d does not exist", rel, lines, fd.Line)
	}
	if fd.EndLine != 0 && (fd.EndLine < fd.Line || fd.EndLine > lines) {
		return fd, nil, fmt.Errorf("end_line %d is outside %d-%d", fd.EndLine, fd.Line, lines)
	}
	switch fd.Severity {
	case "error", "warning", "info", "hint":
	default:
		fd.Severity = "warning"
	}
	fd.Path = rel
	return fd, content, nil
}
