package main

import (
	"context"
	"errors"
)

// why is `agentls why RUN-ID[:STEP]` (E21/E22 issue 28): being built.
func (c *cli) why(_ context.Context, name string, args []string) int {
	fs := c.flags(name)
	if _, code, ok := c.parse(fs, args); !ok {
		return code
	}
	return c.fail(name, errors.New("not available in this build yet"))
}
