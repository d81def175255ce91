package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/agentls/agentls/agent"
)

// A listing reads a log without an index up to date line by line, in
// bounded memory (issue 26: one 100 MB record cost `agentls sessions`
// 214 MiB). A line over maxScanLine is not held: its checksum is checked
// as it streams by, and of its content only what the listing counts is
// read from its head (the kind; a message's role). A reset record that
// large is counted as no messages.
const (
	maxScanLine = 1 << 20
	scanHead    = 4 << 10
)

// errCutOff is a log whose last line has no newline.
var errCutOff = errors.New("the last record is cut off")

// scan reads a session's log for a listing, without keeping or repairing
// it.
func scan(st *Store, id string) (Info, error) {
	f, err := os.Open(st.path(id))
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	s := &Session{ID: id, st: st}
	br := bufio.NewReaderSize(f, 64<<10)
	damaged := ""
	for line := 1; ; line++ {
		rec, err := nextRecord(br)
		if err == io.EOF {
			break
		}
		switch {
		case err != nil:
		case line == 1 && (rec.Kind != kindSession || rec.ID != id):
			err = errors.New("the first record is not this session's header")
		case line > 1 && rec.Kind == kindSession:
			err = errors.New("a second header")
		}
		if err != nil {
			damaged = fmt.Sprintf("line %d: %s", line, err)
			break
		}
		s.apply(rec)
	}
	if fi, err := f.Stat(); err == nil {
		s.updated = fi.ModTime().UTC()
	}
	info := s.infoLocked()
	info.Damaged = damaged
	return info, nil
}

// nextRecord reads the next line of br and decodes it; io.EOF at the end.
func nextRecord(br *bufio.Reader) (*record, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil && buf == nil:
			return decode(chunk[:len(chunk)-1])
		case err == nil:
			return decode(append(buf, chunk[:len(chunk)-1]...))
		case errors.Is(err, bufio.ErrBufferFull) && len(buf)+len(chunk) > maxScanLine:
			return bigRecord(append(buf, chunk...), br)
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		case errors.Is(err, io.EOF) && len(buf)+len(chunk) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF):
			return nil, errCutOff
		default:
			return nil, err
		}
	}
}

// bigRecord reads the rest of a line that began with start, checking its
// checksum, and returns what its head says.
func bigRecord(start []byte, br *bufio.Reader) (*record, error) {
	head := bytes.Clone(start[:min(len(start), scanHead)])
	var sum uint32
	carry := make([]byte, 0, 2*crcSuffixLen)
	feed := func(p []byte) { // carry: the last bytes seen, at most crcSuffixLen, not summed yet
		if len(p) >= crcSuffixLen {
			sum = crc32.Update(sum, crcTable, carry)
			sum = crc32.Update(sum, crcTable, p[:len(p)-crcSuffixLen])
			carry = append(carry[:0], p[len(p)-crcSuffixLen:]...)
			return
		}
		carry = append(carry, p...)
		if k := len(carry) - crcSuffixLen; k > 0 {
			sum = crc32.Update(sum, crcTable, carry[:k])
			carry = append(carry[:0], carry[k:]...)
		}
	}
	feed(start)
	for {
		chunk, err := br.ReadSlice('\n')
		if err == nil {
			feed(chunk[:len(chunk)-1])
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, errCutOff
		}
		feed(chunk)
	}
	if len(carry) != crcSuffixLen || !bytes.HasPrefix(carry, []byte(`,"crc":"`)) || carry[crcSuffixLen-1] != '}' {
		return nil, fmt.Errorf("%w: no checksum (cut off?)", errBadLine)
	}
	want, err := strconv.ParseUint(string(carry[8:crcSuffixLen-2]), 16, 32)
	if err != nil || uint64(sum) != want {
		return nil, fmt.Errorf("%w: checksum mismatch", errBadLine)
	}
	return headRecord(head)
}

// headRecord reads the kind, time and (for a message) role from the head
// of a record, its members in the order [record] declares them.
func headRecord(head []byte) (*record, error) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%w: not an object", errBadLine)
	}
	rec := &record{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		switch key {
		case "k":
			err = dec.Decode(&rec.Kind)
		case "t":
			var t time.Time
			if err = dec.Decode(&t); err == nil {
				rec.Time = t
			}
		case "m":
			var m struct {
				Role agent.Role `json:"role"`
			}
			_, _ = dec.Token() // {
			if k, _ := dec.Token(); k == "role" {
				_ = dec.Decode(&m.Role)
			}
			rec.Msg = &agent.Message{Role: m.Role}
			return rec, nil
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			break
		}
	}
	if rec.Kind == "" {
		return nil, fmt.Errorf("%w: no kind", errBadLine)
	}
	return rec, nil
}
