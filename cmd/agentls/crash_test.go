package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/script"
)

// crashTurns is the number of edit turns of the run that gets killed.
const crashTurns = 6

// crashScript is a run of crashTurns read+edit turns, each answer after a
// delay, so that a kill lands anywhere in it: in a model request, in a
// tool call, in an edit being written, in a session checkpoint.
func crashScript() string {
	var b strings.Builder
	for i := range crashTurns {
		fmt.Fprintf(&b, `{"tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}],"delay_ms":25}`+"\n")
		fmt.Fprintf(&b, `{"tool_calls":[{"name":"edit_file","arguments":{"path":"main.go","edits":[{"old_text":"// v%d","new_text":"// v%d"}]}}],"delay_ms":25}`+"\n", i, i+1)
	}
	b.WriteString(`{"content":"All versions written."}` + "\n")
	return b.String()
}

// crashVersion is main.go at version i.
func crashVersion(i int) string { return fmt.Sprintf("package main\n\n// v%d\nfunc main() {}\n", i) }

// TestCrash_A11_KillNineThenContinue: kill -9 at random moments of an
// `agentls exec` (the built binary) leaves, every time, a workspace file
// that is one whole version or another (never half-written), and a session
// that the next `exec --continue` opens and finishes with exit 0; the
// continued run's first request is a paired conversation whose earlier
// turns are complete turns of the killed run.
func TestCrash_A11_KillNineThenContinue(t *testing.T) {
	t.Parallel() // issue 25: the long real-client suites overlap
	if testing.Short() {
		t.Skip("builds the binary and runs it 20 times")
	}
	bin := buildAgentls(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	continued := 0
	for i := range 10 {
		// A random moment: after the k-th model request arrived (0: after
		// the start), and a little more, up to the request's delay and
		// the tool call after it.
		k, delay := rng.IntN(2*crashTurns+1), time.Duration(rng.IntN(40))*time.Millisecond
		t.Run(fmt.Sprintf("kill_%d_at_request_%d_plus_%s", i, k, delay), func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			home := filepath.Join(dir, "home")
			for _, d := range []string{ws, home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte(crashVersion(0)), 0o644); err != nil {
				t.Fatal(err)
			}
			env := func(url string) []string {
				return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME=",
					"OPENAI_BASE_URL="+url, "OPENAI_API_KEY=sk-test", "AGENTLS_MODEL=scripted")
			}

			// The run that is killed.
			arrived := make(chan int, 2*crashTurns+2)
			srv := newScriptServer(t, crashScript(), func(n int, _ []byte) { arrived <- n + 1 })
			cmd := exec.Command(bin, "exec", "--approve=all", "--file", "main.go", "write every version")
			cmd.Dir, cmd.Env = ws, env(srv.URL)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for n := 0; n < k; {
				select {
				case n = <-arrived:
				case <-time.After(10 * time.Second):
					t.Fatalf("no model request %d:\n%s", k, out.String())
				}
			}
			time.Sleep(delay)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			served := len(srv.Requests())

			data, err := os.ReadFile(filepath.Join(ws, "main.go"))
			if err != nil {
				t.Fatal(err)
			}
			version := -1
			for v := range crashTurns + 1 {
				if string(data) == crashVersion(v) {
					version = v
				}
			}
			if version < 0 {
				t.Fatalf("main.go is no whole version after the kill: %q", data)
			}

			// The run that continues.
			srv2 := newScriptServer(t, `{"content":"continued"}`, nil)
			cont := exec.Command(bin, "exec", "--continue", "--approve=never", "go on")
			cont.Dir, cont.Env = ws, env(srv2.URL)
			got, err := cont.CombinedOutput()
			if err != nil {
				t.Fatalf("exec --continue: %v\n%s\n(killed run, %d model requests:)\n%s", err, got, served, out.String())
			}
			if !strings.Contains(string(got), "done (session") {
				t.Fatalf("exec --continue:\n%s", got)
			}
			msgs := requestMessages(t, srv2.Requests()[0])
			if err := pairedHistory(msgs); err != nil {
				t.Fatalf("continued request: %v\n%v", err, msgs)
			}
			if !strings.Contains(string(got), "nothing to continue") {
				continued++
				// system, the killed run's task, its complete turns, the
				// new instruction
				if len(msgs) < 3 || msgs[1].Role != "user" || !strings.Contains(msgs[len(msgs)-1].Content, "go on") {
					t.Errorf("continued request: %v", msgs)
				}
				// The session holds the complete turns: the answer in
				// progress at the kill (if any) is not among them.
				answers := 0
				for _, m := range msgs {
					if m.Role == "assistant" {
						answers++
					}
				}
				if answers > served || answers < served-1 {
					t.Errorf("%d assistant messages in the history after %d model requests", answers, served)
				}
			}
			t.Logf("killed after %d model requests, main.go at v%d, %d messages sent on continue", served, version, len(msgs))
			ls := exec.Command(bin, "sessions")
			ls.Dir, ls.Env = ws, env(srv2.URL)
			if b, err := ls.CombinedOutput(); err != nil || !strings.Contains(string(b), "write every version") && !strings.Contains(string(b), "go on") {
				t.Errorf("sessions: %v\n%s", err, b)
			}
		})
	}
	t.Logf("%d of 10 kills left a session to continue (the others came before the session was created)", continued)
	if continued == 0 {
		t.Error("no kill left a session to continue")
	}
}

// scriptServer is a scripted model on loopback whose OnRequest hook is
// set before it serves (llmtest.NewServer serves at once).
type scriptServer struct {
	*script.Handler
	URL string
}

func newScriptServer(t *testing.T, text string, onRequest func(int, []byte)) scriptServer {
	t.Helper()
	s, err := llmtest.ParseScript([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	h := script.NewHandler(s)
	h.OnRequest = onRequest
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return scriptServer{Handler: h, URL: srv.URL + "/v1"}
}

type wireMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

func (m wireMessage) String() string {
	ids := []string{}
	for _, c := range m.ToolCalls {
		ids = append(ids, c.ID)
	}
	return fmt.Sprintf("%s(%s%v)", m.Role, m.ToolCallID, ids)
}

func requestMessages(t *testing.T, body []byte) []wireMessage {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []wireMessage
	for _, raw := range req.Messages {
		var m wireMessage
		_ = json.Unmarshal(raw, &m) // content may be parts; the role and IDs are what count
		out = append(out, m)
	}
	return out
}

// pairedHistory checks that every tool call is answered right after its
// message, and every tool result answers a call of the message before.
func pairedHistory(msgs []wireMessage) error {
	var open []string
	for i, m := range msgs {
		switch m.Role {
		case "tool":
			j := slices.Index(open, m.ToolCallID)
			if j < 0 {
				return fmt.Errorf("message %d: result for %q, no such open call", i, m.ToolCallID)
			}
			open = slices.Delete(open, j, j+1)
		default:
			if len(open) > 0 {
				return fmt.Errorf("message %d: calls %v without results", i, open)
			}
			for _, c := range m.ToolCalls {
				open = append(open, c.ID)
			}
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("calls %v without results at the end", open)
	}
	return nil
}
