package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// findings implements tools.FindingSink for a review: a finding on a
// line of a workspace file becomes a location of the report_finding tool
// call (clients jump there) with its text as the call's content.
type findings struct {
	p  *progress
	ws *workspace
}

func (f *findings) Report(ctx context.Context, fd tools.Finding) error {
	rel, err := sandbox.ResolvePath(f.ws.dir, fd.Path)
	if err != nil {
		return fmt.Errorf("%s is not a file in the workspace", fd.Path)
	}
	content, err := f.ws.ReadFile(ctx, rel)
	if err != nil {
		return fmt.Errorf("%s cannot be read", rel)
	}
	lines := strings.Count(string(content), "\n")
	if len(content) > 0 && !strings.HasSuffix(string(content), "\n") {
		lines++
	}
	if fd.Line < 1 || fd.Line > lines {
		return fmt.Errorf("%s has %d lines; line %d does not exist", rel, lines, fd.Line)
	}
	if fd.EndLine != 0 && (fd.EndLine < fd.Line || fd.EndLine > lines) {
		return fmt.Errorf("end_line %d is outside %d-%d", fd.EndLine, fd.Line, lines)
	}
	switch fd.Severity {
	case "error", "warning", "info", "hint":
	default:
		fd.Severity = "warning"
	}
	c := f.p.current("report_finding")
	line := fd.Line
	c.locate(sdk.ToolCallLocation{Path: f.ws.abs(rel), Line: &line})
	c.note(fmt.Sprintf("%s:%d: %s: %s", sandbox.Visible(rel), fd.Line, fd.Severity, sandbox.VisibleText(fd.Message)))
	return nil
}
