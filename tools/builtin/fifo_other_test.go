//go:build !unix

package builtin

import "testing"

func mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("no FIFOs on this platform")
}
