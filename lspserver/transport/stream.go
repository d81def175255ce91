package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessageBytes caps the Content-Length of one incoming message. A
// larger message is refused with ParseError and skipped; the connection
// goes on. It is far above any document the server holds.
const MaxMessageBytes = 64 << 20

const (
	// maxHeaderBytes bounds one header block; real ones are under 100
	// bytes (Content-Length, maybe Content-Type).
	maxHeaderBytes = 4 << 10
	// hugeFrameBytes: after a frame this large, memory is returned to the
	// system before the next read, so that one huge didOpen does not keep
	// the process big.
	hugeFrameBytes = 16 << 20
)

// stream is the LSP base protocol (Content-Length framing) as a
// [jsonrpc2.Stream], tolerant of bad input (E1): no malformed frame ends
// the connection.
//
//   - A header block that is not valid (garbage, a line without a colon, a
//     missing, negative, non-numeric or oversized Content-Length, a line
//     over 4 KiB) is answered with ParseError (id null) and skipped: reading
//     resumes at the next "Content-Length:" in the byte stream, also when
//     it is glued to the garbage (a Content-Length that was too short).
//   - A body that is not JSON is answered with ParseError (id null).
//   - A JSON object that is not a valid request is answered with
//     InvalidRequest, under its id when it has a method and a usable id (an
//     invalid-UTF-8 method, a wrong "jsonrpc"), else with id null.
//   - A batch (a JSON array) is refused: LSP has no batches. Each element
//     that is a request with an id gets InvalidRequest under its id, in a
//     frame of its own; an empty batch and elements without a usable id
//     get one InvalidRequest with id null; notifications in it are dropped.
//
// Every refusal is also told to bad, when it is not nil, with its reason
// (the server logs it and tells its client). Write frames one
// message per Write call; it is safe for concurrent use. Read must be
// called from one goroutine, and what it returns borrows its buffer until
// the next Read, as with jsonrpc2's own streams.
type stream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	bad func(reason string)

	huge    bool   // the last frame was over hugeFrameBytes
	pending []byte // the start of a header line found by seek

	wmu sync.Mutex // serializes writes, one frame each
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(rwc io.ReadWriteCloser, bad func(reason string)) *stream {
	return &stream{rwc: rwc, in: bufio.NewReaderSize(rwc, maxHeaderBytes), bad: bad}
}

// Read returns the next valid message, answering and skipping everything
// else. Its errors are those of the transport: io.EOF at a frame boundary,
// io.ErrUnexpectedEOF inside a frame, or the reader's own.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	if s.huge {
		s.huge = false
		debug.FreeOSMemory() // the previous frame is garbage by now
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, ok, err := s.readFrame(ctx)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			continue // a refused header, answered
		}
		msg, derr := jsonrpc2.DecodeMessage(body)
		if derr == nil && !badMethod(msg) {
			return msg, n, nil
		}
		if err := s.refuseBody(ctx, body); err != nil {
			return nil, 0, err
		}
	}
}

// badMethod reports a request whose method is not valid UTF-8: it could
// not be named in a reply or a log line.
func badMethod(msg jsonrpc2.Message) bool {
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		return !utf8.ValidString(m.Method())
	case *jsonrpc2.Notification:
		return !utf8.ValidString(m.Method())
	}
	return false
}

// readFrame reads one frame. ok is false, with a nil error, for a header
// block that was refused, answered and skipped.
func (s *stream) readFrame(ctx context.Context) (body []byte, n int64, ok bool, err error) {
	length, n, reason, restart, err := s.readHeader()
	if err != nil {
		return nil, 0, false, err
	}
	if reason != "" {
		restart = bytes.Clone(restart) // it borrows the reader's buffer
		if err := s.refuse(ctx, jsonrpc2.ID{}, jsonrpc2.ParseError, "invalid message header: "+reason); err != nil {
			return nil, 0, false, err
		}
		return nil, 0, false, s.seek(restart)
	}
	// Each frame gets its own buffer: the decoded message's params alias
	// it, and a handler that went async (jsonrpc2.Async) reads them after
	// the next frame was read — a reused buffer was a data race that fed
	// it the next message's bytes.
	body = make([]byte, length)
	s.huge = length > hugeFrameBytes
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, false, err
	}
	return body, n + int64(length), true, nil
}

// contentLength is the header name seek looks for, case-insensitively.
const contentLength = "content-length:"

// readHeader reads one header block. When it is not valid, reason says
// why and restart holds the bytes of the offending line from which the
// search for the next header starts (seek).
func (s *stream) readHeader() (length int, n int64, reason string, restart []byte, err error) {
	have := false
	lines := 0
	for {
		line, err := s.line()
		n += int64(len(line))
		switch {
		case err == bufio.ErrBufferFull:
			return 0, n, "header line over 4 KiB", line[1:], nil
		case err == io.EOF && n == 0:
			return 0, 0, "", nil, io.EOF
		case err == io.EOF:
			return 0, 0, "", nil, io.ErrUnexpectedEOF
		case err != nil:
			return 0, 0, "", nil, err
		}
		lines++
		text := bytes.TrimRight(line, "\r\n")
		if len(text) == 0 {
			switch {
			case lines == 1:
				lines, n = 0, 0 // a stray blank line between frames
				continue
			case !have:
				return 0, n, "no Content-Length", nil, nil
			}
			return length, n, "", nil, nil
		}
		if n > maxHeaderBytes {
			// Restart at this very line: it may be a good header after junk.
			return 0, n, "header block over 4 KiB", line, nil
		}
		name, value, ok := bytes.Cut(text, []byte(":"))
		isLength := asciiEqualFold(bytes.TrimSpace(name), "content-length")
		if !ok || (!isLength && indexFold(line[1:], contentLength) >= 0) {
			// Junk, or junk glued to the next header (the body before it
			// was longer than its Content-Length said).
			return 0, n, fmt.Sprintf("malformed line %q", clip(text, 40)), line[1:], nil
		}
		if !isLength {
			continue // Content-Type and unknown fields are ignored
		}
		v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		switch {
		case err != nil || v < 0:
			return 0, n, fmt.Sprintf("invalid Content-Length %q", clip(value, 40)), line[1:], nil
		case v > MaxMessageBytes:
			return 0, n, fmt.Sprintf("Content-Length %d is over the limit of %d bytes", v, MaxMessageBytes), line[1:], nil
		}
		length, have = v, true
	}
}

// line returns the next header line with its terminator: the one seek
// found first, completed from the reader, then lines of the reader. It
// fails with bufio.ErrBufferFull for a line over the reader's buffer.
func (s *stream) line() ([]byte, error) {
	if s.pending == nil {
		return s.in.ReadSlice('\n')
	}
	line := s.pending
	s.pending = nil
	if bytes.HasSuffix(line, []byte("\n")) {
		return line, nil
	}
	rest, err := s.in.ReadSlice('\n')
	line = append(line, rest...)
	if err == nil && len(line) > maxHeaderBytes {
		err = bufio.ErrBufferFull
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return line, err
}

// seek skips bytes, first those of from, then the reader's, up to the
// next "Content-Length:" (any case), and keeps that header line as the
// start of the next block. A header name cannot occur in a JSON body
// followed by a line end, so a body skipped this way never fakes a frame
// that passes. The stream ending while seeking is io.EOF.
func (s *stream) seek(from []byte) error {
	m := 0 // bytes of contentLength matched
	step := func(c byte) bool {
		switch {
		case lower(c) == contentLength[m]:
			m++
		case lower(c) == contentLength[0]:
			m = 1 // the pattern has no other 'c': no longer overlap
		default:
			m = 0
		}
		return m == len(contentLength)
	}
	for i, c := range from {
		if step(c) {
			s.pending = append([]byte("Content-Length:"), from[i+1:]...)
			return nil
		}
	}
	for {
		c, err := s.in.ReadByte()
		if err != nil {
			return err
		}
		if step(c) {
			s.pending = []byte("Content-Length:")
			return nil
		}
	}
}

// refuseBody answers a frame whose body is not a valid message.
func (s *stream) refuseBody(ctx context.Context, body []byte) error {
	if !json.Valid(body) {
		return s.refuse(ctx, jsonrpc2.ID{}, jsonrpc2.ParseError, "message body is not valid JSON")
	}
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil { // not an array: one message
		return s.refuse(ctx, requestID(body), jsonrpc2.InvalidRequest, invalidReason(body))
	}
	const batch = "JSON-RPC batches are not supported (LSP has none); send one message per frame"
	s.report(fmt.Sprintf("a JSON-RPC batch of %d messages (LSP has no batches)", len(elems)))
	answered := false
	for _, e := range elems {
		if id := requestID(e); id.IsValid() {
			answered = true
			if err := s.answer(ctx, id, jsonrpc2.InvalidRequest, batch); err != nil {
				return err
			}
		}
	}
	if answered {
		return nil
	}
	return s.answer(ctx, jsonrpc2.ID{}, jsonrpc2.InvalidRequest, batch)
}

// requestID returns the id of a request object (one with a method), or
// the invalid ID when it has none that can be used: a response-like
// object must not be answered under the id of one of the client's calls.
func requestID(raw []byte) jsonrpc2.ID {
	var m struct {
		Method *json.RawMessage `json:"method"`
		ID     json.RawMessage  `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method == nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return jsonrpc2.ID{}
	}
	var n int64
	if json.Unmarshal(m.ID, &n) == nil {
		return jsonrpc2.NewNumberID(n)
	}
	var str string
	if bytes.HasPrefix(m.ID, []byte(`"`)) && json.Unmarshal(m.ID, &str) == nil && utf8.ValidString(str) {
		return jsonrpc2.NewStringID(str)
	}
	return jsonrpc2.ID{}
}

// invalidReason says what is wrong with a JSON object that is not a
// valid message.
func invalidReason(raw []byte) string {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(raw, &m)
	switch {
	case m.JSONRPC != "2.0":
		return `not a JSON-RPC 2.0 message ("jsonrpc" must be "2.0")`
	case m.Method != nil && !validString(m.Method):
		return "the method is not a valid UTF-8 string"
	}
	return "not a valid JSON-RPC request, response or notification"
}

// validString reports whether raw is a JSON string whose bytes are valid
// UTF-8 (encoding/json would silently replace bad bytes).
func validString(raw json.RawMessage) bool {
	var str string
	return bytes.HasPrefix(raw, []byte(`"`)) && json.Unmarshal(raw, &str) == nil && utf8.Valid(raw)
}

// refuse reports why a message cannot be handled and answers it.
func (s *stream) refuse(ctx context.Context, id jsonrpc2.ID, code jsonrpc2.Code, reason string) error {
	s.report(reason)
	return s.answer(ctx, id, code, reason)
}

func (s *stream) report(reason string) {
	if s.bad != nil {
		s.bad(reason)
	}
}

func (s *stream) answer(ctx context.Context, id jsonrpc2.ID, code jsonrpc2.Code, msg string) error {
	_, err := s.Write(ctx, jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(code, msg)))
	return err
}

// Write frames msg and writes it with one Write call.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	frame := make([]byte, 0, len(body)+32)
	frame = append(strconv.AppendInt(append(frame, "Content-Length: "...), int64(len(body)), 10), "\r\n\r\n"...)
	frame = append(frame, body...)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n, err := s.rwc.Write(frame)
	return int64(n), err
}

// Close closes the transport.
func (s *stream) Close() error { return s.rwc.Close() }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiEqualFold reports whether b equals the lower-case ASCII want,
// ignoring case.
func asciiEqualFold(b []byte, want string) bool {
	if len(b) != len(want) {
		return false
	}
	for i := range b {
		if lower(b[i]) != want[i] {
			return false
		}
	}
	return true
}

// indexFold is the index of the lower-case ASCII want in b, ignoring
// case, or -1.
func indexFold(b []byte, want string) int {
	for i := 0; i+len(want) <= len(b); i++ {
		if asciiEqualFold(b[i:i+len(want)], want) {
			return i
		}
	}
	return -1
}

// clip is the start of b, for a log line (quoted with %q by callers).
func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
