package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

func one(event Event, matcher string, c Command) Config {
	if c.Type == "" {
		c.Type = "command"
	}
	return Config{event: {{Matcher: matcher, Hooks: []Command{c}}}}
}

func pre(t *testing.T, s *Set, tool, input string) tools.HookVerdict {
	t.Helper()
	return s.PreToolUse(t.Context(), &tools.HookCall{SessionID: "s1", Tool: tool, Input: json.RawMessage(input),
		Subject: "rm -f a.txt", Cwd: t.TempDir()})
}

// TestHooks_A13_ExitCodes: exit 0 continues, exit 2 blocks with stderr as
// the reason; another exit status fails open for an observer and closed
// for a policy hook.
func TestHooks_A13_ExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		policy    bool
		block     bool
		reason    string
	}{
		{"exit 0", "exit 0", false, false, ""},
		{"exit 2", "echo 'no rm -f here' >&2; exit 2", false, true, "no rm -f here"},
		{"policy exit 2", "echo nope >&2; exit 2", true, true, "nope"},
		{"observer crash", "echo boom >&2; exit 1", false, false, ""},
		{"policy crash", "echo boom >&2; exit 1", true, true, "could not decide (exit status 1: boom)"},
		{"policy killed", "kill -9 $$", true, true, "could not decide"},
		{"policy allows by exit 0", "cat >/dev/null", true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(&Options{User: one(PreToolUse, "", Command{Command: tc.cmd, Policy: tc.policy})})
			v := pre(t, s, "run_command", `{"command":"rm -f a.txt"}`)
			if v.Block != tc.block || !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("verdict %+v, want block=%v reason ~%q", v, tc.block, tc.reason)
			}
		})
	}
}

// TestHooks_A13_MissingCommand: an observer whose command is missing is
// skipped; a policy hook whose command is missing denies.
func TestHooks_A13_MissingCommand(t *testing.T) {
	for _, cmd := range []string{"/nonexistent/hook.sh", "no-such-hook-command-xyz --flag", "/etc/passwd"} {
		obs := New(&Options{User: one(PreToolUse, "", Command{Command: cmd})})
		if v := pre(t, obs, "run_command", `{}`); v.Block {
			t.Errorf("observer %q blocked: %+v", cmd, v)
		}
		pol := New(&Options{User: one(PreToolUse, "", Command{Command: cmd, Policy: true})})
		if v := pre(t, pol, "run_command", `{}`); !v.Block || !strings.Contains(v.Reason, "not found") {
			t.Errorf("policy %q: %+v, want a deny", cmd, v)
		}
	}
}

// TestHooks_A13_TimeoutKillsGroup: a hook past its timeout is killed with
// every process it started, and the call goes on at once (observer) or is
// denied (policy hook).
func TestHooks_A13_TimeoutKillsGroup(t *testing.T) {
	for _, policy := range []bool{false, true} {
		pidFile := filepath.Join(t.TempDir(), "pid")
		cmd := "sleep 300 & echo $! > " + pidFile + "; wait"
		s := New(&Options{User: one(PreToolUse, "", Command{Command: cmd, Timeout: 0.5, Policy: policy})})
		start := time.Now()
		v := pre(t, s, "run_command", `{}`)
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("policy=%v: the call waited %s for a hook with a 0.5 s timeout", policy, took)
		}
		if v.Block != policy {
			t.Errorf("policy=%v: verdict %+v", policy, v)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		deadline := time.Now().Add(2 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("policy=%v: the hook's child %d survived the timeout", policy, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestHooks_A13_Output: JSON on stdout decides; text is logged and
// ignored by an observer and denies as a policy hook's answer.
func TestHooks_A13_Output(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		policy    bool
		block     bool
		reason    string
		rewrite   string
	}{
		{"text", "just some text", false, false, "", ""},
		{"policy text", "just some text", true, true, "not a JSON verdict", ""},
		{"policy garbage JSON", `{"decision": 3}`, true, true, "not a JSON verdict", ""},
		{"block", `{"decision":"block","reason":"use trash instead"}`, false, true, "use trash instead", ""},
		{"claude deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}`, false, true, "not here", ""},
		{"continue false", `{"continue":false,"stopReason":"stop it"}`, false, true, "stop it", ""},
		{"allow", `{"decision":"allow"}`, true, false, "", ""},
		{"policy unknown decision", `{"decision":"maybe"}`, true, true, "unknown decision", ""},
		{"rewrite", `{"updatedInput":{"command":"rm -i a.txt"}}`, false, false, "", `{"command":"rm -i a.txt"}`},
		{"claude rewrite", `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, false, false, "", `{"command":"ls"}`},
		{"rewrite not an object", `{"updatedInput":"rm"}`, false, false, "", ""},
		{"policy rewrite not an object", `{"updatedInput":[1]}`, true, true, "not a JSON object", ""},
		{"null rewrite", `{"updatedInput":null}`, false, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "out")
			if err := os.WriteFile(file, []byte(tc.out), 0o644); err != nil {
				t.Fatal(err)
			}
			s := New(&Options{User: one(PreToolUse, "run_command", Command{Command: "cat " + file, Policy: tc.policy})})
			v := pre(t, s, "run_command", `{"command":"rm -f a.txt"}`)
			if v.Block != tc.block || !strings.Contains(v.Reason, tc.reason) || string(v.UpdatedInput) != tc.rewrite {
				t.Errorf("verdict %+v (input %s), want block=%v reason ~%q rewrite %s", v, v.UpdatedInput, tc.block, tc.reason, tc.rewrite)
			}
		})
	}
}

// TestHooks_A13_Stdin: the hook reads the event in Claude Code's field
// names, and its environment has no credentials.
func TestHooks_A13_Stdin(t *testing.T) {
	dir := t.TempDir()
	in, envFile := filepath.Join(dir, "in.json"), filepath.Join(dir, "env")
	s := New(&Options{
		User:    one(PreToolUse, "Bash", Command{Command: "cat > " + in + "; env > " + envFile}),
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "OPENAI_API_KEY=sk-secret", "GITHUB_TOKEN=ghp_x"},
	})
	cwd := t.TempDir()
	s.PreToolUse(t.Context(), &tools.HookCall{SessionID: "s1", Tool: "run_command", Input: json.RawMessage(`{"command":"ls"}`),
		Subject: "ls", Cwd: cwd})
	var got map[string]any
	b, _ := os.ReadFile(in)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stdin %q: %v", b, err)
	}
	want := map[string]any{"session_id": "s1", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "run_command",
		"tool_input": map[string]any{"command": "ls"}, "subject": "ls"}
	for k, v := range want {
		if gb, _ := json.Marshal(got[k]); string(gb) != mustJSON(v) {
			t.Errorf("stdin %s = %s, want %s", k, gb, mustJSON(v))
		}
	}
	env, _ := os.ReadFile(envFile)
	if strings.Contains(string(env), "sk-secret") || strings.Contains(string(env), "ghp_x") {
		t.Errorf("a hook got credentials:\n%s", env)
	}
	if !strings.Contains(string(env), "AGENTLS_PROJECT_DIR="+cwd) || !strings.Contains(string(env), "HOME=/home/u") {
		t.Errorf("hook env lacks the project dir or HOME:\n%s", env)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestHooks_A13_Matchers: names, Claude Code aliases, alternatives and
// regular expressions select tools; a broken observer entry is skipped, a
// broken policy entry denies every call.
func TestHooks_A13_Matchers(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		tool    string
		match   bool
	}{
		{"run_command", "run_command", true},
		{"run_command", "run_commands", false},
		{"Bash", "run_command", true},
		{"Edit|Write", "write_file", true},
		{"Edit|Write", "read_file", false},
		{"mcp__.*", "mcp__everything__echo", true},
		{"mcp__.*", "xmcp__a", false},
		{"", "anything", true},
		{"*", "anything", true},
	} {
		s := New(&Options{User: one(PreToolUse, tc.matcher, Command{Command: "exit 2"})})
		if v := pre(t, s, tc.tool, `{}`); v.Block != tc.match {
			t.Errorf("matcher %q on %s: matched %v, want %v", tc.matcher, tc.tool, v.Block, tc.match)
		}
	}
	obs := New(&Options{User: one(PreToolUse, "(", Command{Command: "exit 2"})})
	if v := pre(t, obs, "read_file", `{}`); v.Block || len(obs.Warnings()) != 1 {
		t.Errorf("broken observer: %+v, warnings %q", v, obs.Warnings())
	}
	for _, c := range []Command{{Type: "command", Command: "true", Policy: true}, {Type: "prompt", Command: "x", Policy: true}, {Type: "command", Policy: true}} {
		m := "("
		if c.Command != "true" {
			m = ""
		}
		pol := New(&Options{User: Config{PreToolUse: {{Matcher: m, Hooks: []Command{c}}}}})
		if v := pre(t, pol, "read_file", `{}`); !v.Block || !strings.Contains(v.Reason, "misconfigured") {
			t.Errorf("broken policy %+v: %+v", c, v)
		}
	}
}

// TestHooks_A13_PostToolUse: PostToolUse hooks see the result; a reason
// without a block is feedback; a failing policy hook withholds the result.
func TestHooks_A13_PostToolUse(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	s := New(&Options{User: one(PostToolUse, "", Command{Command: `cat > ` + in + `; echo '{"reason":"2 lint warnings"}'`})})
	v := s.PostToolUse(t.Context(), &tools.HookCall{Tool: "write_file", Cwd: dir}, &tools.Result{Content: "wrote a.go"})
	if v.Block || v.Feedback != "2 lint warnings" {
		t.Errorf("verdict %+v", v)
	}
	if b, _ := os.ReadFile(in); !strings.Contains(string(b), `"tool_response":{"content":"wrote a.go","is_error":false}`) {
		t.Errorf("stdin %s", b)
	}
	pol := New(&Options{User: one(PostToolUse, "", Command{Command: "exit 1", Policy: true})})
	if v := pol.PostToolUse(t.Context(), &tools.HookCall{Tool: "x", Cwd: dir}, &tools.Result{}); !v.Block {
		t.Errorf("failing PostToolUse policy hook: %+v", v)
	}
}

// TestHooks_A13_SessionEvents: SessionStart and Stop hooks run with the
// session and status.
func TestHooks_A13_SessionEvents(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	cfg := Config{
		SessionStart: {{Hooks: []Command{{Type: "command", Command: "cat >> " + log + "; echo >> " + log}}}},
		Stop:         {{Hooks: []Command{{Type: "command", Command: "cat >> " + log}}}},
	}
	s := New(&Options{User: cfg})
	s.SessionStart(t.Context(), "s9", dir)
	s.Stop(t.Context(), "s9", dir, "done")
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"hook_event_name":"SessionStart"`) || !strings.Contains(lines[1], `"status":"done"`) ||
		!strings.Contains(lines[1], `"session_id":"s9"`) {
		t.Errorf("log:\n%s", b)
	}
}
