package lspserver

import (
	"slices"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/tools"
)

// editCounts counts a run's edits hunk by hunk and the files it created
// and deleted (E18), for the "edits" member of the result. Tool calls
// propose concurrently, and command results arrive as events.
type editCounts struct {
	mu sync.Mutex // guards n
	n  command.EditCounts
}

// count adds one proposal's outcome: shown hunks were put to the user
// (0: refused before); a stale refusal before that counts the change's
// hunks as stale, at least one.
func (c *editCounts) count(ch *tools.FileChange, out *tools.EditOutcome, shown int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n.Proposed += shown
	if out.Stale {
		if shown == 0 {
			shown = max(1, len(computeHunks(string(ch.Old), string(ch.New))))
		}
		c.n.Stale += shown
		return
	}
	if shown == 0 {
		return // refused before it was proposed, or no change at all
	}
	applied := 0
	if out.Applied {
		for _, h := range out.Hunks {
			if h.Applied {
				applied++
			}
		}
	}
	c.n.Applied += applied
	c.n.Rejected += shown - applied
	if ch.Create && out.Applied && applied == shown {
		c.n.Created = appendNew(c.n.Created, ch.Path)
		c.n.Deleted = remove(c.n.Deleted, ch.Path)
	}
}

// noteStale counts a change a tool refused as stale before it computed
// the change's hunks: one.
func (c *editCounts) noteStale() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n.Stale++
}

// event counts the files a command's result says landed: added ones as
// created, deleted ones as deleted. A file created and then deleted in
// the same run is neither.
func (c *editCounts) event(e agent.Event) {
	if e.Kind != agent.EventToolResult || len(e.Files) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range e.Files {
		switch f.Change {
		case "added":
			c.n.Deleted = remove(c.n.Deleted, f.Path)
			c.n.Created = appendNew(c.n.Created, f.Path)
		case "deleted":
			if slices.Contains(c.n.Created, f.Path) {
				c.n.Created = remove(c.n.Created, f.Path)
			} else {
				c.n.Deleted = appendNew(c.n.Deleted, f.Path)
			}
		}
	}
}

// wire returns the counts for the "edits" member of the result (E3).
func (c *editCounts) wire() command.EditCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	n.Created, n.Deleted = slices.Clip(slices.Clone(n.Created)), slices.Clip(slices.Clone(n.Deleted))
	if len(n.Created) == 0 {
		n.Created = nil
	}
	if len(n.Deleted) == 0 {
		n.Deleted = nil
	}
	return n
}

func appendNew(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

func remove(list []string, p string) []string {
	return slices.DeleteFunc(list, func(q string) bool { return q == p })
}
