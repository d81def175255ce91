package agent

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a run
// that returns must have stopped everything it started.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
