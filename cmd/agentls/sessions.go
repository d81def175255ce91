package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/headless"
	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// openSessions opens the session store of the current directory's
// workspace; its warnings go to stderr.
func openSessions(state string, stderr io.Writer) (*session.Store, error) {
	if state == "" {
		return nil, errors.New("no state directory: set HOME or XDG_STATE_HOME")
	}
	root, err := headless.Root("")
	if err != nil {
		return nil, err
	}
	return session.Open(state, root, &session.Options{Warn: func(m string) { fmt.Fprintln(stderr, sandbox.VisibleText(m)) }})
}

// latestSession is the ID of the workspace's most recent session for
// --continue, or "" (a new session) when there is none.
func latestSession(state string, stderr io.Writer) string {
	st, err := openSessions(state, stderr)
	if err == nil {
		var id string
		if id, err = st.Latest(); err == nil {
			return id
		}
	}
	fmt.Fprintf(stderr, "agentls: nothing to continue (%s); starting a new session\n", sandbox.Visible(err.Error()))
	return ""
}

// sessions is `agentls sessions [--json] [show ID]` (A16). Tasks,
// instructions, messages and paths are the user's, the model's and the
// repository's: the text shows them with their control characters
// visible (T22), one line each; --json carries them JSON-escaped.
func (c *cli) sessions(_ context.Context, name string, args []string) int {
	fs := c.flags(name)
	asJSON := fs.Bool("json", false, "print JSON: one session per line, or the whole session with show")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case len(rest) == 0, len(rest) == 1 && rest[0] == "list":
	case len(rest) == 2 && rest[0] == "show":
	default:
		return c.badUsage(name)
	}
	st, err := openSessions(stateDir(c.getenv), c.stderr)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls sessions: %s\n", sandbox.Visible(err.Error()))
		return 1
	}
	if len(rest) == 2 {
		return showSession(st, rest[1], *asJSON, c.stdout, c.stderr)
	}
	infos, err := st.List()
	if err != nil {
		fmt.Fprintf(c.stderr, "agentls sessions: %s\n", sandbox.Visible(err.Error()))
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		for _, i := range infos {
			_ = enc.Encode(i)
		}
		return 0
	}
	if len(infos) == 0 {
		fmt.Fprintln(c.stdout, "no sessions in this workspace yet")
		return 0
	}
	v := sandbox.Visible
	// One write for the table, not one per cell (1,000 sessions: 10–20 ms).
	out := bufio.NewWriter(c.stdout)
	defer out.Flush()
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMODE\tSTARTED\tTURNS\tTASK")
	for _, i := range infos {
		task := i.Task
		if i.Damaged != "" {
			task = "[damaged: " + i.Damaged + "] " + task
		}
		// Visible escapes tabs too, so a task cannot shift the columns.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", v(i.ID), v(string(i.Mode)), i.Started.Local().Format("2006-01-02 15:04"), i.Turns, v(task))
	}
	_ = tw.Flush()
	return 0
}

// shownSession is `agentls sessions show --json`.
type shownSession struct {
	Session  session.Info      `json:"session"`
	Runs     []session.RunInfo `json:"runs"`
	Messages []agent.Message   `json:"messages"`
	Recovery *session.Recovery `json:"recovery,omitempty"`
}

func showSession(st *session.Store, id string, asJSON bool, stdout, stderr io.Writer) int {
	s, err := st.Inspect(id)
	if err != nil {
		fmt.Fprintf(stderr, "agentls sessions show: %s\n", sandbox.Visible(err.Error()))
		return 1
	}
	if rec := s.Recovery(); rec != nil && !asJSON {
		fmt.Fprintf(stderr, "agentls: %s\n", sandbox.VisibleText(rec.String()))
	}
	out := shownSession{Session: s.Info(), Runs: s.Runs(), Messages: s.Messages(), Recovery: s.Recovery()}
	if asJSON {
		b, _ := json.Marshal(out)
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	i := out.Session
	v := sandbox.Visible
	fmt.Fprintf(stdout, "session %s (%s), started %s, %d turns, %d messages\n", v(i.ID), v(string(i.Mode)), i.Started.Local().Format("2006-01-02 15:04"), i.Turns, i.Messages)
	for _, r := range out.Runs {
		status := r.Status
		if status == "" {
			status = "did not end"
		}
		fmt.Fprintf(stdout, "\nrun %s  %s  %s  %s\n", v(r.ID), v(string(r.Mode)), v(string(status)), v(r.Instruction))
		if r.RevertedBy != 0 {
			fmt.Fprintf(stdout, "  reverted by %s\n", v(session.RunID(s.ID, r.RevertedBy)))
		}
		for _, c := range r.Changes {
			what := "changed"
			if c.Create {
				what = "created"
			} else if c.Gone() {
				what = "deleted"
			}
			if !c.Kept {
				what += " (not revertable)"
			}
			fmt.Fprintf(stdout, "  %s %s\n", what, v(c.Path))
		}
	}
	fmt.Fprintln(stdout, "\nconversation:")
	for _, m := range out.Messages {
		line := v(firstLine(m.Content))
		for _, c := range m.ToolCalls {
			line = strings.TrimSpace(line + " → " + v(c.Name))
		}
		fmt.Fprintf(stdout, "  %-9s %s\n", v(string(m.Role)), line)
	}
	return 0
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 120 {
		s = strings.ToValidUTF8(s[:120], "") + "…"
	}
	return s
}

// revert is `agentls revert [--json] [--session ID] [RUN]` (A16).
func (c *cli) revert(ctx context.Context, name string, args []string) int {
	fs := c.flags(name)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	sessionID := fs.String("session", "", "revert the last run of this session that changed files")
	rest, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 1 {
		return c.badUsage(name)
	}
	a := &command.RevertArgs{SessionID: *sessionID, RunID: firstOf(rest)}
	log := newLogger(io.Discard, false)
	opts := serverOptions(c.user, c.getenv, log, tools.ProfileHeadless)
	return headless.Revert(ctx, &headless.Options{JSON: *asJSON, Approve: headless.ApproveNever, Stdout: c.stdout, Stderr: c.stderr, Server: opts}, a)
}

// firstOf is the first of args, or "".
func firstOf(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
