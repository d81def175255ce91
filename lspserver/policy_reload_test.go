package lspserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
	"github.com/agentls/agentls/tools"
)

// denyReads is a project policy that refuses read_file, which the
// defaults allow: a run under it shows which policy it used.
const denyReads = `{"deny": ["read_file"], "approval_timeout_seconds": 5}`

// projectPolicy loads .agentls/policy.json as `agentls serve` does.
func projectPolicy(root string) (*tools.Policy, error) {
	return tools.LoadPolicy(tools.ProfileEditor, "", filepath.Join(root, ".agentls", "policy.json"))
}

// twoReads is a plan that reads a.go, twice over two runs.
var twoReads = strings.Join([]string{
	`{"tool_calls":[{"id":"r1","name":"read_file","arguments":{"path":"a.go"}}]}`,
	`{"content":"Done."}`,
	`{"tool_calls":[{"id":"r2","name":"read_file","arguments":{"path":"a.go"}}]}`,
	`{"content":"Done."}`,
}, "\n")

func planArg(h *harness) map[string]any {
	return map[string]any{"uri": h.uri("a.go"), "instruction": "read it"}
}

func (h *harness) toolCode(id string) string {
	h.t.Helper()
	out := h.toolResult(id)
	if strings.Contains(out, `"code":"policy_denied"`) {
		return "policy_denied"
	}
	return out
}

// E10: a broken edit of the policy keeps the previous good policy, and
// says so, instead of failing the run (or falling back to the defaults).
func TestServer_E10_BrokenPolicyKeepsLastGood(t *testing.T) {
	h := start(t, setup{script: twoReads, files: map[string]string{"a.go": "package a\n", ".agentls/policy.json": denyReads},
		opts: func(o *lspserver.Options) { o.LoadPolicy = projectPolicy }})
	h.mustRun(command.Plan, planArg(h))
	if got := h.toolCode("r1"); got != "policy_denied" {
		t.Fatalf("first run: read_file result %q, want policy_denied", got)
	}
	h.writeFile(".agentls/policy.json", `{"deny": ["read_file"`)
	res, err := h.run(command.Plan, planArg(h))
	if err != nil {
		t.Fatalf("a run after a broken policy edit failed: %v", err)
	}
	if res.Status != "done" {
		t.Errorf("status %q", res.Status)
	}
	if got := h.toolCode("r2"); got != "policy_denied" {
		t.Errorf("second run: read_file result %q, want policy_denied (the previous good policy)", got)
	}
	if _, err := h.c.WaitText(time.Second, "window/showMessage", "previous good policy"); err != nil {
		t.Errorf("the user was not told that the previous policy is used: %v", err)
	}
}

// E10: with no good policy to keep, a broken policy still fails the run
// (its denies must not be dropped), and the user hears of it at once.
func TestServer_E10_BrokenPolicyWithoutGoodOneFails(t *testing.T) {
	h := start(t, setup{script: twoReads, files: map[string]string{"a.go": "package a\n", ".agentls/policy.json": "{"},
		opts: func(o *lspserver.Options) { o.LoadPolicy = projectPolicy }})
	if _, err := h.c.WaitText(5*time.Second, "window/showMessage", "runs fail until it is fixed"); err != nil {
		t.Errorf("no message about the broken policy at start: %v", err)
	}
	_, err := h.run(command.Plan, planArg(h))
	if reason := wantCode(t, err, lspserver.CodeRequestFailed); reason != string(lspserver.ReasonPolicyInvalid) {
		t.Errorf("reason %q, want policy.invalid", reason)
	}
}

// E10: policy files reload live: a broken edit is reported when it is
// saved, not at the next run, and so is its fix; through the fsnotify
// watch and through the client's didChangeWatchedFiles.
func TestServer_E10_PolicyReloadsLive(t *testing.T) {
	for _, viaClient := range []bool{false, true} {
		name := map[bool]string{false: "fsnotify", true: "didChangeWatchedFiles"}[viaClient]
		t.Run(name, func(t *testing.T) {
			h := start(t, setup{script: twoReads, files: map[string]string{"a.go": "package a\n", ".agentls/policy.json": denyReads},
				opts: func(o *lspserver.Options) {
					o.LoadPolicy = projectPolicy
					if !viaClient {
						o.Watch = &lspserver.WatchOptions{}
					}
				}})
			edit := func(text string) {
				h.writeFile(".agentls/policy.json", text)
				if viaClient {
					err := h.c.Notify(h.ctx(), "workspace/didChangeWatchedFiles", map[string]any{
						"changes": []any{map[string]any{"uri": h.uri(".agentls/policy.json"), "type": 2}},
					})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			h.mustRun(command.Plan, planArg(h)) // the policy loaded once: a good one to keep
			// until: edit, then wait for the message; the watch starts in the
			// background, so an edit before it is ready is made again.
			until := func(text, msg string) error {
				var err error
				for range 5 {
					edit(text)
					if _, err = h.c.WaitText(time.Second, "window/showMessage", msg); err == nil {
						return nil
					}
				}
				return err
			}
			if err := until("{ not json", "keep the previous good policy"); err != nil {
				t.Fatalf("a broken policy edit was not reported: %v", err)
			}
			if err := until(denyReads, "loads again"); err != nil {
				t.Errorf("the fixed policy was not reported: %v", err)
			}
		})
	}
}

// E10: a client that offers dynamic registration of
// workspace/didChangeWatchedFiles is asked for the workspace's events.
func TestServer_E10_RegistersWatchedFiles(t *testing.T) {
	caps := clientCaps(false, false, false)
	caps["workspace"].(map[string]any)["didChangeWatchedFiles"] = map[string]any{"dynamicRegistration": true}
	h := start(t, setup{files: map[string]string{"a.go": "package a\n"}, caps: caps,
		handlers: map[string]lsptest.Handler{"client/registerCapability": lsptest.Reply(nil)}})
	m, err := h.c.WaitFor(5*time.Second, "client/registerCapability", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := string(m.Params); !strings.Contains(p, `"method":"workspace/didChangeWatchedFiles"`) || !strings.Contains(p, `"globPattern":"**/*"`) {
		t.Errorf("registration %s, want workspace/didChangeWatchedFiles for **/*", p)
	}
	// A client without dynamic registration is not asked.
	h2 := start(t, setup{files: map[string]string{"a.go": "package a\n"}, caps: clientCaps(false, false, false)})
	if _, err := h2.c.WaitFor(300*time.Millisecond, "client/registerCapability", nil); err == nil {
		t.Error("registration sent to a client without dynamicRegistration")
	}
}

// E10: the user's policy file, outside the workspace, reloads live too.
func TestServer_E10_UserPolicyReloadsLive(t *testing.T) {
	user := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(user, []byte(denyReads), 0o644); err != nil {
		t.Fatal(err)
	}
	h := start(t, setup{script: twoReads, files: map[string]string{"a.go": "package a\n"},
		opts: func(o *lspserver.Options) {
			o.LoadPolicy = func(root string) (*tools.Policy, error) {
				return tools.LoadPolicy(tools.ProfileEditor, user, filepath.Join(root, ".agentls", "policy.json"))
			}
			o.Watch = &lspserver.WatchOptions{PolicyFiles: []string{user}}
		}})
	h.mustRun(command.Plan, planArg(h))
	var err error
	for range 5 {
		if err = os.WriteFile(user, []byte("{ not json"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err = h.c.WaitText(time.Second, "window/showMessage", "keep the previous good policy"); err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("a broken edit of the user's policy was not reported: %v", err)
	}
}
