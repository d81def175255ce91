package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExec_Prestart_SameGuarantees (S1-S3): a command run in a prestarted
// helper gets the same isolation as a cold one: no writes or reads
// outside, timeouts, exit codes; and the warm helper is replaced after use
// and ended by Close.
func TestExec_Prestart_SameGuarantees(t *testing.T) {
	needSandboxLayers(t, LayerLandlock, LayerPIDNamespace)
	warm := New(&Options{Prestart: true, Helper: testHelper})
	defer warm.Close()
	ws := execWorkspace(t)
	outside := execWorkspace(t)
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// S6: an existing top-level file stays writable without approval.
	if err := os.WriteFile(filepath.Join(ws, "in.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := warm.sys.warm.used.Load()
	for i, c := range []struct {
		cmd   string
		check func(r *Result) error
	}{
		{"echo hi; exit 3", func(r *Result) error {
			if r.Stdout != "hi\n" || r.ExitCode != 3 {
				return fmt.Errorf("stdout %q exit %d", r.Stdout, r.ExitCode)
			}
			return nil
		}},
		{fmt.Sprintf("echo x > %s/pwned; cat %s; echo in > in.txt", outside, secret), func(r *Result) error {
			if strings.Contains(r.Stdout, "TOP-SECRET") {
				return fmt.Errorf("secret read: %q", r.Stdout)
			}
			if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
				return fmt.Errorf("wrote outside")
			}
			if b, err := os.ReadFile(filepath.Join(ws, "in.txt")); err != nil || string(b) != "in\n" {
				return fmt.Errorf("could not write inside: %q, %v", b, err)
			}
			return nil
		}},
		{"env", func(r *Result) error {
			if strings.Contains(r.Stdout, "AGENTLS_WARM_SECRET") {
				return fmt.Errorf("server env leaked: %q", r.Stdout)
			}
			return nil
		}},
	} {
		warm.waitWarm()
		t.Setenv("AGENTLS_WARM_SECRET", "x") // set after the warm start too
		r := runWith(t, warm, &Spec{Command: c.cmd, Dir: ws})
		if err := c.check(r); err != nil {
			t.Errorf("command %d %q: %v", i, c.cmd, err)
		}
	}
	if used := warm.sys.warm.used.Load() - before; used < 3 {
		t.Errorf("warm helpers used %d times, want 3", used)
	}
	warm.waitWarm()
	r := runWith(t, warm, &Spec{Command: "trap '' TERM; sleep 30", Dir: ws, Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond})
	if !r.TimedOut || !strings.Contains(r.Stdout, "[command timed out after") {
		t.Errorf("timeout in a warm helper: %+v", r)
	}
}
