package lspserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"
	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/tools"
)

var update = flag.Bool("update", false, "rewrite the -- server -- section of testdata/transcripts/*.txtar")

// TestTranscripts runs the LSP transcripts in testdata/transcripts (STYLE.md §8).
// Each archive holds:
//
//   - a comment saying what it pins, with requirement IDs (required);
//   - workspace/<path> files, written to a temporary workspace;
//   - model: the scripted model turns, llmtest JSON lines (optional);
//   - policy: the user's policy file (optional; the project's is
//     workspace/.agentls/policy.json, loaded as in the editor);
//   - client: the client's JSON-RPC messages, in order ("#" lines are
//     comments; a JSON string is sent as the body of one frame, verbatim,
//     to send what is not JSON-RPC);
//   - server: the golden server messages, rewritten by -update.
//
// The server runs in-process over net.Pipe inside a synctest bubble; the
// model is llmtest over in-memory pipes too (never loopback), so approval
// timeouts and model delays take no real time. The runner sends the client
// messages one by one and, after each, lets the server settle: it waits
// until every goroutine of the bubble is blocked, answering the server's
// requests as the client messages say. A client response ("id": "?") takes
// the ID of the oldest server request not answered yet (the MCP
// conformance technique). After the last message it waits for every call of
// the client to be answered, letting fake time pass, then disconnects.
//
// In the client messages, $WORK is the workspace directory and $SESSION1,
// $SESSION2, … the session IDs the server has handed out, in order. The
// golden section holds, for each client message, the server messages it
// caused: requests and notifications in wire order, then responses ordered
// by ID (handlers answer concurrently, so the order of responses on the
// wire is not part of the contract). Messages are pretty-printed with
// sorted keys; the workspace directory reads $WORK and session IDs read
// $SESSION1, $SESSION2, ….
func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no transcripts in testdata/transcripts")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			tr, err := loadTranscript(path)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			flushPools()
			synctest.Test(t, func(t *testing.T) { got = tr.run(t) })
			flushPools()
			if t.Failed() {
				return
			}
			if *update {
				if err := tr.writeGolden(got); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(strings.Split(tr.golden, "\n"), strings.Split(got, "\n")); diff != "" {
				t.Errorf("server messages differ from %s (-want +got); rerun with -update if the change is intended:\n%s", path, diff)
			}
		})
	}
}

// flushPools empties every sync.Pool. go.lsp.dev/jsonrpc2 pools the
// channels its calls wait on; one made inside a bubble must not be used
// outside it or in another bubble (the runtime aborts), and one made outside
// would not count as durably blocking inside. Two collections clear a
// sync.Pool: the first moves its items to the victim cache, the second
// drops them.
func flushPools() {
	runtime.GC()
	runtime.GC()
}

// transcript is one parsed archive.
type transcript struct {
	path    string
	archive *txtar.Archive
	files   map[string][]byte
	model   llmtest.Script // nil: no model configured
	client  []json.RawMessage
	golden  string
	policy  []byte // the user's policy file; nil: the editor defaults
}

func loadTranscript(path string) (*transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tr := &transcript{path: path, archive: txtar.Parse(data), files: map[string][]byte{}}
	if strings.TrimSpace(string(tr.archive.Comment)) == "" {
		return nil, errors.New("the archive needs a comment saying what it pins")
	}
	seen := map[string]bool{}
	for _, f := range tr.archive.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("duplicate section %q", f.Name)
		}
		seen[f.Name] = true
		switch name, isFile := strings.CutPrefix(f.Name, "workspace/"); {
		case isFile:
			tr.files[name] = f.Data
		case f.Name == "model":
			if tr.model, err = llmtest.ParseScript(f.Data); err != nil {
				return nil, fmt.Errorf("model: %v", err)
			}
		case f.Name == "client":
			if tr.client, err = parseMessages(f.Data); err != nil {
				return nil, fmt.Errorf("client: %v", err)
			}
		case f.Name == "server":
			tr.golden = string(f.Data)
		case f.Name == "policy":
			tr.policy = f.Data
		default:
			return nil, fmt.Errorf("unknown section %q", f.Name)
		}
	}
	if len(tr.client) == 0 {
		return nil, errors.New("no client messages")
	}
	return tr, nil
}

// parseMessages reads a stream of JSON values, skipping "#" comment lines.
func parseMessages(data []byte) ([]json.RawMessage, error) {
	var b bytes.Buffer
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	dec := json.NewDecoder(&b)
	var out []json.RawMessage
	for dec.More() {
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("message %d: %v", len(out)+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func (tr *transcript) writeGolden(got string) error {
	a := &txtar.Archive{Comment: tr.archive.Comment}
	for _, f := range tr.archive.Files {
		if f.Name != "server" {
			a.Files = append(a.Files, f)
		}
	}
	a.Files = append(a.Files, txtar.File{Name: "server", Data: []byte(got)})
	return os.WriteFile(tr.path, txtar.Format(a), 0o644)
}

// envelope is the part of a JSON-RPC message the runner looks at.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (e envelope) isCall() bool { return e.Method != "" && len(e.ID) > 0 }

// session is one run of a transcript inside a bubble.
type session struct {
	t      *testing.T
	root   string
	frames frameStream

	inbox   *inbox
	pending []envelope      // server requests not answered yet, oldest first
	calls   map[string]bool // client calls without a response yet, by ID
	ids     []string        // session IDs in order of appearance
	out     strings.Builder
}

// frameStream is the raw side of go.lsp.dev/jsonrpc2's header stream.
type frameStream interface {
	ReadFrame(context.Context) ([]byte, int64, error)
	WriteFrame(context.Context, []byte) (int64, error)
}

// run plays the transcript and returns the normalised server messages. It
// must run inside a synctest bubble.
func (tr *transcript) run(t *testing.T) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range tr.files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := &lspserver.Options{}
	if tr.policy != nil {
		// The user's file, and the project's own from the workspace.
		user := filepath.Join(t.TempDir(), "policy.json")
		if err := os.WriteFile(user, tr.policy, 0o644); err != nil {
			t.Fatal(err)
		}
		opts.LoadPolicy = func(root string) (*tools.Policy, error) {
			return tools.LoadPolicy(tools.ProfileEditor, user, filepath.Join(root, filepath.FromSlash(tools.ProjectPolicyFile)))
		}
	}
	var llm *llmtest.PipeServer
	if tr.model != nil {
		llm = llmtest.NewPipeServer(tr.model)
		opts.NewModel = func() (agent.Model, error) {
			return openai.New(&openai.Options{BaseURL: llm.URL, Model: "test-model", MaxRetries: -1, HTTPClient: llm.Client()})
		}
	}
	srvSide, cliSide := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- lspserver.Serve(context.Background(), srvSide, opts) }()

	s := &session{t: t, root: root, inbox: newInbox(), calls: map[string]bool{}}
	s.frames = jsonrpc2.NewHeaderStream(cliSide).(frameStream)
	go s.inbox.fill(s.frames)
	// On every path, t.Fatal included, disconnect and wait for the server,
	// so that the bubble can end.
	defer func() {
		cliSide.Close()
		if err := <-served; err != nil && !errors.Is(err, io.ErrClosedPipe) {
			t.Logf("Serve: %v", err)
		}
		if llm != nil {
			llm.Close()
		}
		if t.Failed() {
			t.Logf("server messages so far:\n%s", s.out.String())
		}
	}()

	for i, raw := range tr.client {
		s.send(i+1, raw)
	}
	s.finish()
	if llm != nil {
		if n := llm.Remaining(); n != 0 {
			t.Errorf("%d scripted model turns were never asked for", n)
		}
	}
	return s.out.String()
}

// send sends client message n, then lets the server settle.
func (s *session) send(n int, raw json.RawMessage) {
	if raw[0] == '"' { // a JSON string: its text is sent as one frame
		var body string
		if err := json.Unmarshal(raw, &body); err != nil {
			s.t.Fatalf("client message %d: %v", n, err)
		}
		fmt.Fprintf(&s.out, "# %d: raw frame %q\n", n, body)
		if _, err := s.frames.WriteFrame(context.Background(), s.expand([]byte(body))); err != nil {
			s.t.Fatalf("client message %d: %v", n, err)
		}
		s.settle()
		return
	}
	var e envelope
	if err := json.Unmarshal(raw, &e); err != nil {
		s.t.Fatalf("client message %d: %v", n, err)
	}
	header := e.Method
	switch {
	case e.Method == "" && string(e.ID) == `"?"`:
		if len(s.pending) == 0 {
			s.t.Fatalf("client message %d answers a server request, but none is waiting", n)
		}
		req := s.pending[0]
		s.pending = s.pending[1:]
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			s.t.Fatalf("client message %d: %v", n, err)
		}
		fields["id"] = req.ID
		raw, _ = json.Marshal(fields)
		header = fmt.Sprintf("response to %s (id %s)", req.Method, req.ID)
	case e.Method == "":
		s.t.Fatalf(`client message %d is a response: give it "id": "?"`, n)
	case e.isCall():
		s.calls[compact(e.ID)] = true
		header = fmt.Sprintf("%s (id %s)", e.Method, e.ID)
		var p struct {
			Params struct {
				Command string `json:"command"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Params.Command != "" {
			header = fmt.Sprintf("%s %s (id %s)", e.Method, p.Params.Command, e.ID)
		}
	}
	fmt.Fprintf(&s.out, "# %d: %s\n", n, header)
	if _, err := s.frames.WriteFrame(context.Background(), s.expand(raw)); err != nil {
		s.t.Fatalf("client message %d: %v", n, err)
	}
	s.settle()
}

// expand replaces $WORK and $SESSIONn in a client message.
func (s *session) expand(raw []byte) []byte {
	out := bytes.ReplaceAll(raw, []byte("$WORK"), []byte(s.root))
	for i := len(s.ids) - 1; i >= 0; i-- { // $SESSION10 before $SESSION1
		out = bytes.ReplaceAll(out, fmt.Appendf(nil, "$SESSION%d", i+1), []byte(s.ids[i]))
	}
	return out
}

// settle waits until the server is idle and records what it sent.
func (s *session) settle() {
	synctest.Wait()
	var msgs, responses []json.RawMessage
	for _, m := range s.inbox.take() {
		var e envelope
		if err := json.Unmarshal(m, &e); err != nil {
			s.t.Fatalf("server message %s: %v", m, err)
		}
		switch {
		case e.Method == "":
			delete(s.calls, compact(e.ID))
			responses = append(responses, m)
		case e.isCall():
			s.pending = append(s.pending, e)
			msgs = append(msgs, m)
		case e.Method == "$/cancelRequest":
			// The server withdrew a request: the client no longer answers it.
			var p struct {
				Params struct {
					ID json.RawMessage `json:"id"`
				} `json:"params"`
			}
			_ = json.Unmarshal(m, &p)
			s.pending = slices.DeleteFunc(s.pending, func(r envelope) bool { return compact(r.ID) == compact(p.Params.ID) })
			msgs = append(msgs, m)
		default:
			msgs = append(msgs, m)
		}
	}
	slices.SortStableFunc(responses, func(a, b json.RawMessage) int {
		var ea, eb envelope
		_ = json.Unmarshal(a, &ea)
		_ = json.Unmarshal(b, &eb)
		if len(ea.ID) != len(eb.ID) {
			return len(ea.ID) - len(eb.ID)
		}
		return bytes.Compare(ea.ID, eb.ID)
	})
	for _, m := range append(msgs, responses...) {
		s.record(m)
	}
}

// finish waits, letting fake time pass, until every client call has its
// response or the server stops. Each block of late messages is headed by
// the fake time elapsed since the last client message.
func (s *session) finish() {
	start := time.Now()
	for len(s.calls) > 0 && s.inbox.wait() {
		fmt.Fprintf(&s.out, "# %v after the last client message\n", time.Since(start))
		s.settle()
	}
	if len(s.calls) > 0 {
		s.t.Errorf("the server stopped without answering client calls %v", slices.Sorted(maps.Keys(s.calls)))
	}
}

var sessionIDs = regexp.MustCompile(`"sessionId":\s*"([0-9a-f]{12})"|agentls-([0-9a-f]{12})`)

// record appends one server message, normalised, to the output.
func (s *session) record(raw json.RawMessage) {
	for _, m := range sessionIDs.FindAllSubmatch(raw, -1) {
		id := string(m[1]) + string(m[2])
		if !slices.Contains(s.ids, id) {
			s.ids = append(s.ids, id)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		s.t.Fatalf("server message %s: %v", raw, err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		s.t.Fatal(err)
	}
	text := strings.ReplaceAll(b.String(), s.root, "$WORK")
	for i, id := range s.ids {
		text = strings.ReplaceAll(text, id, fmt.Sprintf("$SESSION%d", i+1))
	}
	s.out.WriteString(text)
}

func compact(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// inbox collects the frames the server sends; its reader never blocks on
// anything but the pipe, so the server can always write.
type inbox struct {
	mu     sync.Mutex // guards msgs and closed
	msgs   []json.RawMessage
	closed bool
	ready  chan struct{} // has a value when msgs grew or the stream ended
}

func newInbox() *inbox { return &inbox{ready: make(chan struct{}, 1)} }

func (in *inbox) fill(fs frameStream) {
	for {
		frame, _, err := fs.ReadFrame(context.Background())
		in.mu.Lock()
		if err != nil {
			in.closed = true
		} else {
			in.msgs = append(in.msgs, append(json.RawMessage(nil), frame...))
		}
		in.mu.Unlock()
		select {
		case in.ready <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

func (in *inbox) take() []json.RawMessage {
	in.mu.Lock()
	defer in.mu.Unlock()
	m := in.msgs
	in.msgs = nil
	return m
}

// wait blocks until a message arrives; it returns false once the stream
// has ended and every message was taken.
func (in *inbox) wait() bool {
	for {
		in.mu.Lock()
		n, closed := len(in.msgs), in.closed
		in.mu.Unlock()
		if n > 0 {
			return true
		}
		if closed {
			return false
		}
		<-in.ready
	}
}
