package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/lspserver/acp"
)

// TestACP_E20_NewSessionChecksCwd: session/new takes the workspace root
// as its cwd: a relative, unclean or missing path, a file, a path outside
// --root and a link inside it to outside are refused with invalid
// params; a good one gets a session with the three modes, execute
// current.
func TestACP_E20_NewSessionChecksCwd(t *testing.T) {
	outside := t.TempDir()
	f := start(t, setup{files: map[string]string{"a.go": "package a\n"}, opts: func(o *acp.Options) {}})
	// --root: a second agent that only takes sessions in f.root, where a
	// link points outside.
	g := start(t, setup{opts: func(o *acp.Options) { o.Root = f.root }})
	if err := os.Symlink(outside, filepath.Join(f.root, "out")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fx  *fixture
		cwd string
	}{{f, "relative/dir"}, {f, f.root + "/../" + filepath.Base(f.root)}, {f, f.root + "/missing"},
		{f, filepath.Join(f.root, "a.go")}, {g, outside}, {g, filepath.Join(f.root, "out")}} {
		_, err := c.fx.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: c.cwd, McpServers: []sdk.McpServer{}})
		var re *sdk.RequestError
		if err == nil || !asRequestError(err, &re) || re.Code != -32602 {
			t.Errorf("session/new cwd %q: err = %v, want invalid params", c.cwd, err)
		}
	}
	resp, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: f.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "execute" {
		t.Fatalf("modes = %s, want current execute", mustJSON(resp.Modes))
	}
	var ids []string
	for _, m := range resp.Modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	if !slices.Equal(ids, []string{"plan", "review", "execute"}) {
		t.Errorf("modes = %v", ids)
	}
	if _, err := f.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: "yolo"}); err == nil {
		t.Error("set_mode yolo: no error")
	}
	if _, err := g.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: f.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Errorf("session/new in --root itself: %v", err)
	}
}

func asRequestError(err error, re **sdk.RequestError) bool {
	e, ok := err.(*sdk.RequestError)
	if ok {
		*re = e
	}
	return ok
}

// TestACP_E20_PlanStreamsToolCallsAndEntries: a prompt in plan mode
// streams the model's text as agent message chunks, the read as a tool
// call of kind read (pending → in_progress → completed, located at the
// file), refuses an edit (plan is read-only: the tool is not offered, no
// permission asked, the file unchanged), ends with the plan's entries
// and stop reason end_turn.
func TestACP_E20_PlanStreamsToolCallsAndEntries(t *testing.T) {
	f := start(t, setup{files: map[string]string{"stats.go": "package stats\n"}, script: `
{"tool_calls":[{"name":"read_file","arguments":{"path":"stats.go"}},{"name":"write_file","arguments":{"path":"stats.go","content":"x"}}]}
{"content":"Plan:\n1. Guard the empty slice\n2. Add a test\n"}
`})
	sid := f.newSession("plan")
	f.mustPrompt(sid, "How should Average handle an empty slice?", sdk.StopReasonEndTurn)
	us, perms := f.cl.snapshot()
	if got := messageText(us); !strings.Contains(got, "1. Guard the empty slice") {
		t.Errorf("message text = %q", got)
	}
	order, calls := toolCalls(us)
	if len(order) != 2 {
		t.Fatalf("tool calls = %d, want 2: %s", len(order), mustJSON(us))
	}
	read, write := calls[order[0]], calls[order[1]]
	want := []sdk.ToolCallStatus{"pending", "in_progress", "completed"}
	if read.kind != sdk.ToolKindRead || !slices.Equal(read.statuses, want) || len(read.locs) != 1 ||
		read.locs[0].Path != filepath.Join(f.root, "stats.go") || !strings.Contains(read.title, "stats.go") {
		t.Errorf("read call = %+v, want kind read, %v, located at stats.go", read, want)
	}
	if write.kind != sdk.ToolKindEdit || write.statuses[len(write.statuses)-1] != "failed" {
		t.Errorf("write call in plan = %+v, want a failed edit", write)
	}
	if len(perms) != 0 || f.read("stats.go") != "package stats\n" {
		t.Errorf("plan asked %d permissions, file %q", len(perms), f.read("stats.go"))
	}
	var plan *sdk.SessionUpdatePlan
	for _, u := range us {
		if u.Plan != nil {
			plan = u.Plan
		}
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[0].Content != "Guard the empty slice" || plan.Entries[1].Status != "pending" {
		t.Errorf("plan = %s", mustJSON(plan))
	}
}
