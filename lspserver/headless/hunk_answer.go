package headless

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/sandbox"
)

// hunkAnswer is the user's answer about one hunk at the terminal (issue
// 28): keep it, or not and why, or keep it with the text they wrote.
type hunkAnswer struct {
	keep   bool
	reason string
	text   *string
}

// askHunk asks about one hunk: y applies it, n (or "n: reason") rejects
// it, e opens $EDITOR on its proposed text and applies what the user
// saves. 1 and 2 still mean yes and no; empty or EOF is no.
func (c *client) askHunk(question, proposed string) hunkAnswer {
	if c.o.Approve != ApproveAsk {
		return hunkAnswer{keep: c.confirm(question)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	resume := c.out.pauseSpinner()
	defer resume()
	fmt.Fprintf(c.o.Stderr, "\n%s\n  [1] %s (y)\n  [2] %s (n; \"n: reason\" tells the model why)\n  [e] edit it in $EDITOR, then apply your text\n"+
		"choice (number, y, n, n: reason or e; empty = no): ", sandbox.VisibleText(question), command.ActionApprove, command.ActionDeny)
	line, _ := c.readLine()
	if c.ctx.Err() != nil {
		fmt.Fprintf(c.o.Stderr, "\ncancelled\n")
		c.out.approval(question, "", decisionDenied, "denied (cancelled)")
		return hunkAnswer{}
	}
	a := parseHunkAnswer(line)
	if a.text != nil { // e: edit first
		text, err := c.editInEditor(proposed)
		if err != nil {
			fmt.Fprintf(c.o.Stderr, "the hunk is not applied: %v\n", err)
			c.out.approval(question, "", decisionDenied, "denied (the editor failed)")
			return hunkAnswer{}
		}
		a.text = &text
		c.out.approval(question, text, decisionEdited, "edited in $EDITOR")
		return a
	}
	if a.keep {
		c.out.approval(question, "y", decisionApproved, "approved on the terminal")
	} else {
		c.out.approval(question, a.reason, decisionDenied, "denied on the terminal")
	}
	return a
}

// parseHunkAnswer reads one answer line; a non-nil text means "edit".
func parseHunkAnswer(line string) hunkAnswer {
	s := strings.TrimSpace(line)
	word, reason, _ := strings.Cut(s, ":")
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "y", "yes", "1":
		return hunkAnswer{keep: true}
	case "e", "edit":
		empty := ""
		return hunkAnswer{keep: true, text: &empty}
	case "n", "no", "2":
		return hunkAnswer{reason: strings.TrimSpace(reason)}
	}
	return hunkAnswer{}
}

// editInEditor lets the user change text in $VISUAL or $EDITOR (vi when
// neither is set) on the terminal, and returns what they saved.
func (c *client) editInEditor(text string) (string, error) {
	dir, err := os.MkdirTemp("", "agentls-hunk-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "hunk.txt")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		return "", err
	}
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	cmd := exec.CommandContext(c.ctx, "sh", "-c", editor+` "$1"`, "sh", f)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, c.o.Stderr, c.o.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", editor, err)
	}
	b, err := os.ReadFile(f)
	return string(b), err
}

// hunkIndex is the N of the server's annotation "agentls.N", or -1.
func hunkIndex(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "agentls."))
	if err != nil || !strings.HasPrefix(id, "agentls.") {
		return -1
	}
	return n
}

// note adds the user's answer about hunk i to the reply.
func (a hunkAnswer) note(said *lspserver.HunkReply, i int) {
	if i < 0 {
		return
	}
	switch {
	case !a.keep && a.reason != "":
		said.Hunks = append(said.Hunks, lspserver.HunkAnswer{Index: i, Reason: a.reason})
	case a.keep && a.text != nil:
		said.Hunks = append(said.Hunks, lspserver.HunkAnswer{Index: i, Text: a.text})
	}
}
