package exec

import (
	"io"
	"strings"
	"testing"
)

// writeToSpy is a reader that, like an *os.File, has a WriteTo, which
// io.CopyBuffer would prefer to the buffer it is given.
type writeToSpy struct {
	r    io.Reader
	used bool
}

func (s *writeToSpy) Read(p []byte) (int, error) { return s.r.Read(p) }

func (s *writeToSpy) WriteTo(w io.Writer) (int64, error) {
	s.used = true
	return io.Copy(w, s.r) // allocates a 32 KiB buffer of its own
}

// TestCopyOut_Issue16_UsesItsOwnBuffer: copying a command's output goes
// through copyOut's pooled buffer, never through the reader's WriteTo
// (an *os.File's allocated 32 KiB per stream, next to ours).
func TestCopyOut_Issue16_UsesItsOwnBuffer(t *testing.T) {
	spy := &writeToSpy{r: strings.NewReader("output\n")}
	b := newCapBuffer(StdoutCap)
	copyOut(b, spy)
	if spy.used {
		t.Error("copyOut copied through the reader's WriteTo")
	}
	if b.String() != "output\n" {
		t.Errorf("copied %q", b.String())
	}
}
