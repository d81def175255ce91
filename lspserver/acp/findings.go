package acp

import (
	"context"
	"fmt"

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
	fd, _, err := tools.CheckFinding(ctx, f.ws.dir, f.ws, fd)
	if err != nil {
		return err
	}
	rel := fd.Path
	c := f.p.current("report_finding")
	line := fd.Line
	c.locate(sdk.ToolCallLocation{Path: f.ws.abs(rel), Line: &line})
	c.note(fmt.Sprintf("%s:%d: %s: %s", sandbox.Visible(rel), fd.Line, fd.Severity, sandbox.VisibleText(fd.Message)))
	return nil
}
