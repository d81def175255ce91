package lspserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// eglotInfo stands for eglot 1.9, which sends no clientInfo at all: the
// server cannot tell it from Kate or any other client that is not ours.
var eglotInfo = map[string]any{}

// ownPluginCaps are the capabilities of one of our plugins: it announces
// experimental.agentls.
func ownPluginCaps() map[string]any {
	caps := clientCaps(false, false, true)
	caps["experimental"] = map[string]any{"agentls": map[string]any{"runEvents": true}}
	return caps
}

const cartFile = "package a\n\n// agentls: handle the empty \x1b[2Jcart\nfunc Total(items []int) int {\n\treturn items[0]\n}\n"

// codeAction is one code action as the tests read it.
type codeAction struct {
	Title   string `json:"title"`
	Command struct {
		Command   string         `json:"command"`
		Arguments []command.Args `json:"arguments"`
	} `json:"command"`
}

func (h *harness) codeActions(rel string, line int) []codeAction {
	h.t.Helper()
	pos := map[string]any{"line": line, "character": 0}
	var actions []codeAction
	err := h.c.Call(h.ctx(), "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": h.uri(rel)},
		"range":        map[string]any{"start": pos, "end": pos},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	if err != nil {
		h.t.Fatal(err)
	}
	return actions
}

func titles(actions []codeAction) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Title)
	}
	return out
}

// TestCodeAction_E19_InstructionFromComment: with the cursor under an
// "agentls:" comment, plan and execute carry the comment's instruction, in
// the argument and (control bytes made visible) in the title, for a client
// without an input box and for our plugins alike. A client that is not
// ours is asked to detach; without such a comment it is offered review
// alone (plan and execute would fail for want of an instruction), while
// our plugins keep Plan… and Execute…, which ask for one.
func TestCodeAction_E19_InstructionFromComment(t *testing.T) {
	const want = "handle the empty \x1b[2Jcart"
	for _, c := range []struct {
		name   string
		caps   map[string]any
		detach bool
	}{{"eglot", clientCaps(true, false, false), true}, {"own plugin", ownPluginCaps(), false}} {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, setup{files: map[string]string{"a.go": cartFile}, caps: c.caps, clientInfo: eglotInfo})
			got := h.codeActions("a.go", 3)
			if len(got) != 3 {
				t.Fatalf("actions %q, want plan, review, execute", titles(got))
			}
			for _, a := range []codeAction{got[0], got[2]} {
				arg := a.Command.Arguments[0]
				if arg.Instruction != want || arg.Detach != c.detach || arg.URI != h.uri("a.go") {
					t.Errorf("%s argument %+v, want instruction %q, detach %v", a.Command.Command, arg, want, c.detach)
				}
				if !strings.Contains(a.Title, `“handle the empty \x1b[2Jcart”`) {
					t.Errorf("title %q, want the instruction with the escape made visible", a.Title)
				}
			}
			if got[0].Command.Command != command.Plan || got[2].Command.Command != command.Execute || got[1].Command.Arguments[0].Detach != c.detach {
				t.Errorf("actions %+v", got)
			}
			h.writeFile("b.go", "package a\n")
			none := titles(h.codeActions("b.go", 0))
			wantNone := []string{"agentls: Plan…", "agentls: Review selection", "agentls: Execute…"}
			if c.detach {
				wantNone = []string{"agentls: Review selection"}
			}
			if strings.Join(none, "|") != strings.Join(wantNone, "|") {
				t.Errorf("without a comment: actions %q, want %q", none, wantNone)
			}
		})
	}
}

// TestExecute_E19_DetachedAnswersAtOnce: a detached execute from a client
// without progress UI is answered with its session while the run still
// waits for the user (no request waits for the whole run); the run says it
// started and how it ended (status, hunk counts) with window/showMessage,
// and the edit lands as approved. Its questions put Deny first.
func TestExecute_E19_DetachedAnswersAtOnce(t *testing.T) {
	h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs},
		caps: clientCaps(true, false, false), clientInfo: eglotInfo})
	ed := newEditor(h)
	ed.open("a.go", 1, nil)
	release := make(chan struct{})
	var firsts []string
	h.c.Handle("window/showMessageRequest", func(ctx context.Context, raw json.RawMessage) (any, error) {
		var q question
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, err
		}
		firsts = append(firsts, q.Actions[0].Title)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if q.offers(command.ActionSaved) {
			text, _ := ed.text("a.go")
			h.writeFile("a.go", text)
			return map[string]string{"title": command.ActionSaved}, nil
		}
		return map[string]string{"title": command.ActionApprove}, nil
	})
	arg := execArg(h)
	arg["detach"] = true
	raw, err := json.Marshal(arg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.c.Go(h.ctx(), "workspace/executeCommand", map[string]any{"command": command.Execute, "arguments": []json.RawMessage{raw}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait(wait) // the question is unanswered meanwhile: the run cannot have ended
	if err != nil {
		t.Fatalf("no reply while the run waits for the user: %v", err)
	}
	var started command.Started
	if err := json.Unmarshal(res, &started); err != nil || !started.Started || started.SessionID == "" || !strings.HasPrefix(started.RunID, started.SessionID) {
		t.Fatalf("reply %s (%v), want {sessionId, runId, started: true}", res, err)
	}
	if _, err := h.c.WaitText(wait, "window/showMessage", "agentls execute started on a.go: “return bigger numbers”"); err != nil {
		t.Error(err)
	}
	close(release)
	end, err := h.c.WaitText(wait, "window/showMessage", "agentls execute done (run "+started.RunID+")")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(end.Params), "edits: 2 hunks proposed, 2 applied, 0 rejected, 0 stale") {
		t.Errorf("result message %s, want the hunk counts", end.Params)
	}
	if got := h.read("a.go"); got != twoFuncsEdited {
		t.Errorf("a.go holds %q, want the approved change", got)
	}
	for i, f := range firsts {
		if f != command.ActionDeny && f != command.ActionNotNow {
			t.Errorf("question %d offers %q first, want the safe answer", i+1, f)
		}
	}
	if len(firsts) == 0 {
		t.Error("no question was asked")
	}
}

// TestExecute_E19_DetachedWithProgress: a client that offers work-done
// progress gets the detached run's progress with $/progress, not a
// "started" message; the result, which no reply carries, still comes as
// window/showMessage.
func TestExecute_E19_DetachedWithProgress(t *testing.T) {
	h := start(t, setup{script: `{"content":"The plan: check len(items) first."}`, files: map[string]string{"a.go": cartFile},
		caps: clientCaps(true, false, true), clientInfo: eglotInfo})
	var started command.Started
	err := h.c.Call(h.ctx(), "workspace/executeCommand", map[string]any{"command": command.Plan,
		"arguments": []any{map[string]any{"uri": h.uri("a.go"), "instruction": "plan it", "detach": true}}}, &started)
	if err != nil || !started.Started {
		t.Fatalf("reply %+v, %v", started, err)
	}
	end, err := h.c.WaitText(wait, "window/showMessage", "agentls plan done")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(end.Params), "The plan: check len(items) first.") {
		t.Errorf("result message %s, want the plan", end.Params)
	}
	if n := len(h.c.Received("$/progress")); n < 2 {
		t.Errorf("%d $/progress notifications, want begin and end", n)
	}
	for _, m := range h.c.Received("window/showMessage") {
		if strings.Contains(string(m.Params), "started") {
			t.Errorf("a started message %s besides $/progress", m.Params)
		}
	}
}

// TestAsk_E19_SafeAnswerFirst: questions to a client that is not ours put
// Deny first (eglot pre-selects the first action: Enter must not approve);
// our plugins get the actions as before, Approve first.
func TestAsk_E19_SafeAnswerFirst(t *testing.T) {
	for _, c := range []struct {
		name  string
		caps  map[string]any
		first string
	}{{"eglot", clientCaps(true, false, false), command.ActionDeny}, {"own plugin", ownPluginCaps(), command.ActionApprove}} {
		t.Run(c.name, func(t *testing.T) {
			// Neither trusts change annotations here: the edit is asked first (E14).
			h := start(t, setup{script: editScript, files: map[string]string{"a.go": twoFuncs}, caps: c.caps, clientInfo: eglotInfo,
				handlers: map[string]lsptest.Handler{"window/showMessageRequest": lsptest.Reply(map[string]string{"title": command.ActionDeny})}})
			h.mustRun(command.Execute, execArg(h))
			qs := h.c.Received("window/showMessageRequest")
			if len(qs) == 0 {
				t.Fatal("no question asked")
			}
			var q question
			if err := json.Unmarshal(qs[0].Params, &q); err != nil {
				t.Fatal(err)
			}
			if len(q.Actions) < 2 || q.Actions[0].Title != c.first || !q.offers(command.ActionApprove) {
				t.Errorf("actions %+v, want %q first and Approve offered", q.Actions, c.first)
			}
		})
	}
}
