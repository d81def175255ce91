//go:build !unix

package sandboxtest

import "testing"

// Mkfifo skips the test: there are no named pipes on this platform.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("no FIFOs on this platform")
}
