package headless

import (
	"strings"
	"testing"
	"time"
)

// A19 (issue 25): the spinner says what the run waits for and for how
// long, redraws its one line in place, and erases it before anything
// else is printed; paused for a question, its time goes on.
func TestSpinner_A19_ElapsedTime(t *testing.T) {
	var out, errOut strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &printer{w: &out, errw: &errOut}
	p.spin = &spinner{w: &errOut, now: func() time.Time { return now }}
	p.waitFor("running run_command")
	now = now.Add(65 * time.Second)
	p.spin.draw()
	resume := p.pauseSpinner()
	now = now.Add(5 * time.Second)
	resume()
	p.text(p.w, "done\n")
	want := "\r\x1b[K⠋ running run_command 0s" + "\r\x1b[K⠙ running run_command 1m05s" + "\r\x1b[K" +
		"\r\x1b[K⠹ running run_command 1m10s" + "\r\x1b[K"
	if got := errOut.String(); got != want {
		t.Errorf("stderr\n%q\nwant\n%q", got, want)
	}
	if out.String() != "done\n" {
		t.Errorf("stdout %q", out.String())
	}
}
