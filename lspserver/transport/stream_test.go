package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// frame is one LSP frame around body.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// pipeRWC is a transport reading from a fixed input and recording writes.
type pipeRWC struct {
	io.Reader
	out bytes.Buffer
}

func (p *pipeRWC) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *pipeRWC) Close() error                { return nil }

// readAll reads messages from in until the stream ends and returns them,
// the stream's replies and the reasons it reported.
func readAll(t testing.TB, in string) (msgs []jsonrpc2.Message, replies []map[string]any, reasons []string, err error) {
	rwc := &pipeRWC{Reader: strings.NewReader(in)}
	st := newStream(rwc, func(r string) { reasons = append(reasons, r) })
	for {
		msg, _, rerr := st.Read(context.Background())
		if rerr != nil {
			err = rerr
			break
		}
		msgs = append(msgs, msg)
	}
	rs := jsonrpc2.NewHeaderStream(&pipeRWC{Reader: &rwc.out}).(interface {
		ReadFrame(context.Context) ([]byte, int64, error)
	})
	for {
		b, _, ferr := rs.ReadFrame(context.Background())
		if ferr != nil {
			if !errors.Is(ferr, io.EOF) {
				t.Fatalf("the stream wrote a bad frame: %v\n%q", ferr, rwc.out.String())
			}
			break
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("the stream wrote a body that is not JSON: %q", b)
		}
		replies = append(replies, m)
	}
	return msgs, replies, reasons, err
}

func callID(t testing.TB, m jsonrpc2.Message) int64 {
	c, ok := m.(*jsonrpc2.Call)
	if !ok {
		t.Fatalf("got %T, want a call", m)
	}
	n, _ := c.ID().Number()
	return n
}

func errCode(r map[string]any) float64 {
	e, _ := r["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const goodCall = `{"jsonrpc":"2.0","id":7,"method":"textDocument/codeAction","params":{}}`

// E1: no malformed header ends the session: each is answered with
// ParseError (id null), its reason is reported, and the next valid frame
// is read. Before, each of these made the server exit 1 silently.
func TestStream_E1_ResyncAfterGarbageHeader(t *testing.T) {
	short := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	for name, junk := range map[string]string{
		"garbage line":          "hello world\r\n\r\n",
		"garbage without colon": "GET / HTTP/1.1 nonsense",
		"random bytes":          "\x00\xff\x13\x37binary\r\n\xfe\r\n\r\n",
		"negative length":       "Content-Length: -5\r\n\r\n",
		"huge length":           "Content-Length: 1000000000000\r\n\r\n",
		"over the cap":          fmt.Sprintf("Content-Length: %d\r\n\r\n{\"jsonrpc\":\"2.0\"}", MaxMessageBytes+1),
		"not a number":          "Content-Length: ten\r\n\r\n",
		"no length":             "Content-Type: application/vscode-jsonrpc\r\n\r\n",
		"length too short":      fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(short)-10, short),
		"line too long":         strings.Repeat("x", 10000) + "\r\n",
		"block too long":        strings.Repeat("X-Pad: 1234567890\r\n", 400),
		"glued to the header":   "Content-Length: 5",
		"header name in junk":   "A: bContent-Type: x",
	} {
		t.Run(name, func(t *testing.T) {
			msgs, replies, reasons, err := readAll(t, junk+frame(goodCall))
			if !errors.Is(err, io.EOF) {
				t.Errorf("stream ended with %v, want io.EOF after the good frame", err)
			}
			if len(msgs) != 1 || callID(t, msgs[0]) != 7 {
				t.Fatalf("read %v, want the call with id 7", msgs)
			}
			if len(replies) == 0 || len(reasons) == 0 {
				t.Fatalf("replies %v, reasons %q: the junk was neither answered nor reported", replies, reasons)
			}
			for _, r := range replies {
				if r["id"] != nil {
					t.Errorf("reply %v: id should be null", r)
				}
				if c := errCode(r); c != float64(jsonrpc2.ParseError) {
					t.Errorf("reply %v: code %v, want -32700", r, c)
				}
			}
		})
	}
}

// E1: frames that only look odd are accepted as the spec allows.
func TestStream_E1_ValidHeaders(t *testing.T) {
	for name, in := range map[string]string{
		"content type first": "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: " + fmt.Sprint(len(goodCall)) + "\r\n\r\n" + goodCall,
		"lower case":         "content-length: " + fmt.Sprint(len(goodCall)) + "\r\n\r\n" + goodCall,
		"bare newlines":      "Content-Length: " + fmt.Sprint(len(goodCall)) + "\n\n" + goodCall,
		"blank line before":  "\r\n" + frame(goodCall),
	} {
		t.Run(name, func(t *testing.T) {
			msgs, replies, reasons, err := readAll(t, in)
			if !errors.Is(err, io.EOF) || len(msgs) != 1 || len(replies) != 0 || len(reasons) != 0 {
				t.Fatalf("msgs %v replies %v reasons %q err %v", msgs, replies, reasons, err)
			}
		})
	}
}

// E1: a stream that ends inside a frame is io.ErrUnexpectedEOF, at a
// boundary io.EOF; neither is answered.
func TestStream_E1_EndOfStream(t *testing.T) {
	for in, want := range map[string]error{
		"":                                io.EOF,
		frame(goodCall):                   io.EOF,
		"Content-Length: 50\r\n\r\n{":     io.ErrUnexpectedEOF,
		"Content-Length: 50\r\n":          io.ErrUnexpectedEOF,
		"Content-Len":                     io.ErrUnexpectedEOF,
		"junk without any header\r\n\r\n": io.EOF,
	} {
		_, _, _, err := readAll(t, in)
		if !errors.Is(err, want) {
			t.Errorf("%q: %v, want %v", in, err, want)
		}
	}
}

// E11: a request whose method is not valid UTF-8 gets InvalidRequest under
// its own id; a body that is not JSON gets ParseError with id null; an
// object that is not a request with an id is answered with id null.
func TestStream_E11_InvalidRequests(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		id         any
		code       jsonrpc2.Code
	}{
		{"invalid UTF-8 method", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"\xff\xfe\"}", float64(5), jsonrpc2.InvalidRequest},
		{"invalid UTF-8 method, string id", "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\xc3\"}", "a", jsonrpc2.InvalidRequest},
		{"wrong version", `{"jsonrpc":"1.0","id":6,"method":"shutdown"}`, float64(6), jsonrpc2.InvalidRequest},
		{"truncated", `{"jsonrpc":"2.0","id":2,"method":`, nil, jsonrpc2.ParseError},
		{"response without result", `{"jsonrpc":"2.0","id":3}`, nil, jsonrpc2.InvalidRequest},
		{"null id", `{"jsonrpc":"1.0","id":null,"method":"x"}`, nil, jsonrpc2.InvalidRequest},
		{"empty body", ``, nil, jsonrpc2.ParseError},
		{"truncated batch", `[1, 2`, nil, jsonrpc2.ParseError},
		{"empty batch", `[]`, nil, jsonrpc2.InvalidRequest},
		{"batch of numbers", `[1, 2]`, nil, jsonrpc2.InvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, replies, reasons, _ := readAll(t, frame(tc.body)+frame(goodCall))
			if len(msgs) != 1 || callID(t, msgs[0]) != 7 {
				t.Fatalf("read %v, want only the good call", msgs)
			}
			if len(replies) != 1 || len(reasons) != 1 {
				t.Fatalf("replies %v reasons %q, want one of each", replies, reasons)
			}
			if replies[0]["id"] != tc.id || errCode(replies[0]) != float64(tc.code) {
				t.Errorf("reply %v, want id %v code %d", replies[0], tc.id, tc.code)
			}
		})
	}
}

// E11: a batch is refused element by element: each request with an id
// gets InvalidRequest under its id; notifications in it are dropped.
func TestStream_E11_BatchRefusedPerElement(t *testing.T) {
	batch := `[{"jsonrpc":"2.0","id":1,"method":"shutdown"},{"jsonrpc":"2.0","method":"initialized"},{"jsonrpc":"2.0","id":"b","method":"x"}]`
	msgs, replies, reasons, _ := readAll(t, frame(batch))
	if len(msgs) != 0 {
		t.Errorf("a batch element was handled: %v", msgs)
	}
	if len(reasons) != 1 {
		t.Errorf("reasons %q, want one", reasons)
	}
	var ids []any
	for _, r := range replies {
		if errCode(r) != float64(jsonrpc2.InvalidRequest) {
			t.Errorf("reply %v, want InvalidRequest", r)
		}
		ids = append(ids, r["id"])
	}
	if fmt.Sprint(ids) != "[1 b]" {
		t.Errorf("replies under ids %v, want [1 b]", ids)
	}
}

// FuzzHeaderStream_E1 feeds the stream arbitrary bytes. It must never
// panic or loop, every reply it writes must be a valid frame, and junk
// that holds no "content-length" never hides the valid frame after it.
func FuzzHeaderStream_E1(f *testing.F) {
	for _, s := range []string{
		"", "hello\r\n\r\n", "Content-Length: -5\r\n\r\n", "Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 3\r\n\r\n{}}", "\x00\xff", "A: b", "[1, 2", "Content-Type: x\r\n\r\n",
		"Content-Length: 2\r\n\r\n[]", "Content-Length: 0\r\n\r\n", strings.Repeat("y", 5000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, junk string) {
		readAll(t, junk) // alone: no panic, no loop, only valid frames written
		if strings.Contains(strings.ToLower(junk), "content-length") {
			return
		}
		msgs, _, _, err := readAll(t, junk+frame(goodCall))
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("junk %q: stream ended with %v", junk, err)
		}
		if len(msgs) == 0 {
			t.Fatalf("junk %q hid the valid frame after it", junk)
		}
		if last := msgs[len(msgs)-1]; callID(t, last) != 7 {
			t.Fatalf("junk %q: last message %v, want the good call", junk, last)
		}
	})
}

// E1: a message's params stay what they were after the next frame is
// read — a handler that went async (jsonrpc2.Async) reads them then. A
// body buffer reused across frames handed it the next message's bytes
// (a data race the headless client's applyEdit hit under -race).
func TestStream_E1_ParamsOutliveTheNextFrame(t *testing.T) {
	first := `{"jsonrpc":"2.0","id":1,"method":"workspace/applyEdit","params":{"label":"aaaaaaaa"}}`
	second := `{"jsonrpc":"2.0","id":2,"method":"workspace/applyEdit","params":{"label":"bbbbbbbb"}}`
	rwc := &pipeRWC{Reader: strings.NewReader(frame(first) + frame(second))}
	st := newStream(rwc, func(string) {})
	m1, _, err := st.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := string(m1.(*jsonrpc2.Call).Params()); got != `{"label":"aaaaaaaa"}` {
		t.Errorf("the first message's params after the second frame: %s", got)
	}
}
