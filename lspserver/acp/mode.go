package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
)

// A session's mode is the client's choice, and a client may set it in one
// agentls process and prompt in the next (acpx starts the agent anew for
// a command when none serves the session): so the mode set last is kept
// next to the session's log, in <id>.acp-mode (0600: the mode and when it
// was set, in Unix nanoseconds: file times are coarser than a run's
// start), and session/load takes it unless a run of the session (exec,
// serve, acp) began after it; then the mode of that run. A session
// without either is in execute.

func modePath(st *session.Store, id string) string {
	if st.Dir() == "" {
		return ""
	}
	return filepath.Join(st.Dir(), id+".acp-mode")
}

// keepMode records the mode set for session id; a store in memory keeps
// none.
func keepMode(st *session.Store, id string, m agent.Mode) {
	if p := modePath(st, id); p != "" {
		_ = os.WriteFile(p, []byte(fmt.Sprintf("%s %d\n", m, time.Now().UnixNano())), 0o600)
	}
}

// loadedMode is the mode a loaded session continues in.
func loadedMode(st *session.Store, sess *session.Session) agent.Mode {
	mode, at := agent.ModeExecute, int64(0)
	if runs := sess.Runs(); len(runs) > 0 {
		last := runs[len(runs)-1]
		if m, err := agent.ParseMode(last.Mode); err == nil {
			mode, at = m, last.Started.UnixNano()
		}
	}
	p := modePath(st, sess.ID)
	if p == "" {
		return mode
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return mode
	}
	name, when, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	set, err := strconv.ParseInt(when, 10, 64)
	if m, perr := agent.ParseMode(name); err == nil && perr == nil && set >= at {
		return m
	}
	return mode
}
