package main

import (
	"context"
	"errors"
)

// importSettings is `agentls import claude|codex [--write]` (issue 28): being built.
func (c *cli) importSettings(_ context.Context, name string, args []string) int {
	fs := c.flags(name)
	if _, code, ok := c.parse(fs, args); !ok {
		return code
	}
	return c.fail(name, errors.New("not available in this build yet"))
}
