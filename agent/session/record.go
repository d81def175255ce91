package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"

	"github.com/agentls/agentls/agent"
)

// formatVersion is the version of the log format in the header record.
const formatVersion = 1

// The kinds of records.
const (
	kindSession = "session"
	kindRun     = "run"
	kindMsg     = "msg"
	kindReset   = "reset"
	kindEnd     = "end"
	kindChange  = "change"
	kindRevert  = "revert"
	kindStep    = "step"
)

// record is one line of a session log. Which fields are set depends on
// Kind (see the package doc).
type record struct {
	Kind string    `json:"k"`
	Time time.Time `json:"t,omitzero"`

	// session
	Version int    `json:"v,omitempty"`
	ID      string `json:"id,omitempty"`
	Root    string `json:"root,omitempty"`

	// run, end, change, revert: the run's number, from 1
	Run         int    `json:"run,omitempty"`
	Mode        string `json:"mode,omitempty"`
	Instruction string `json:"instruction,omitempty"`
	Reverts     int    `json:"reverts,omitempty"` // run: the run a revert run restores

	// msg, reset
	Msg  *agent.Message  `json:"m,omitempty"`
	Msgs []agent.Message `json:"ms,omitempty"`

	// end
	Status  string `json:"status,omitempty"`
	Turns   int    `json:"turns,omitempty"`
	Summary string `json:"summary,omitempty"`

	// change
	Path   string `json:"path,omitempty"`
	Before string `json:"before,omitempty"` // sha256 of the old content; "" with Create
	After  string `json:"after,omitempty"`  // sha256 of what the run left
	Create bool   `json:"create,omitempty"` // the run created the file
	Kept   bool   `json:"kept,omitempty"`   // the old content is in the checkpoint

	// step: why a tool call of run Run was allowed, asked or denied
	Step *agent.Explanation `json:"step,omitempty"`

	// revert
	Restored []string `json:"restored,omitempty"`
	Stale    []string `json:"stale,omitempty"`
	Failed   []string `json:"failed,omitempty"`
}

// crcSuffix is the shape of a line's end: `,"crc":"xxxxxxxx"}`.
const crcSuffixLen = len(`,"crc":"01234567"}`)

var crcTable = crc32.MakeTable(crc32.IEEE)

// encode returns rec as one log line: its JSON with a checksum member
// appended, and a newline.
func encode(rec *record) ([]byte, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[len(body)-1] != '}' {
		return nil, errors.New("session: record is not a JSON object")
	}
	body = body[:len(body)-1]
	sum := crc32.Checksum(body, crcTable)
	line := make([]byte, 0, len(body)+crcSuffixLen+1)
	line = append(line, body...)
	line = fmt.Appendf(line, `,"crc":"%08x"}`+"\n", sum)
	return line, nil
}

// errBadLine is wrapped by decode's errors.
var errBadLine = errors.New("bad record")

// decode checks a line's checksum and decodes it (without the newline).
func decode(line []byte) (*record, error) {
	n := len(line)
	if n < crcSuffixLen+1 || !bytes.HasPrefix(line[n-crcSuffixLen:], []byte(`,"crc":"`)) || line[n-1] != '}' || line[n-2] != '"' {
		return nil, fmt.Errorf("%w: no checksum (cut off?)", errBadLine)
	}
	want, err := strconv.ParseUint(string(line[n-crcSuffixLen+8:n-2]), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: checksum is not hex", errBadLine)
	}
	if got := crc32.Checksum(line[:n-crcSuffixLen], crcTable); uint64(got) != want {
		return nil, fmt.Errorf("%w: checksum mismatch", errBadLine)
	}
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadLine, err)
	}
	if rec.Kind == "" {
		return nil, fmt.Errorf("%w: no kind", errBadLine)
	}
	return &rec, nil
}
