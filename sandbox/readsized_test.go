package sandbox

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// S4 (issue 27 item 2): a file is read into one buffer of its size, not
// the doubling of io.ReadAll; one that grew after its size was taken is
// still read whole, and a reader's error is returned.
func TestReadSized_S4(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	b, err := readSized(bytes.NewReader(data), int64(len(data)))
	if err != nil || !bytes.Equal(b, data) || cap(b) != len(data)+1 {
		t.Errorf("read %d bytes (cap %d, err %v), want %d in a buffer of %d", len(b), cap(b), err, len(data), len(data)+1)
	}
	grown, err := readSized(bytes.NewReader(data), 1000) // it had 1,000 bytes at stat
	if err != nil || !bytes.Equal(grown, data) {
		t.Errorf("a grown file: %d bytes, err %v, want all %d", len(grown), err, len(data))
	}
	if _, err := readSized(io.MultiReader(strings.NewReader("abc"), errReader{}), 10); err == nil || err.Error() != "boom" {
		t.Errorf("a failing reader: err %v, want boom", err)
	}
	rd := bytes.NewReader(nil)
	allocs := testing.AllocsPerRun(5, func() {
		rd.Reset(data)
		readSized(rd, int64(len(data)))
	})
	if allocs > 1 {
		t.Errorf("%v allocations to read a file of known size, want 1", allocs)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBoom }

var errBoom = stringErr("boom")

type stringErr string

func (e stringErr) Error() string { return string(e) }
