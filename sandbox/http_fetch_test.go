package sandbox

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFetch_B4_BodyLimits(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(bytes.Repeat([]byte("z"), 8<<20)) // 8 MiB, ~8 KiB compressed
	zw.Close()
	chunk := bytes.Repeat([]byte("a"), 32<<10)
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/huge": // up to 1 GiB, until the client goes away
			w.Header().Set("Content-Type", "text/plain")
			for i := 0; i < 1<<15; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/bomb":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
		}
	})
	p := ts.policy(true, "fetch.test")
	p.MaxBytes = 1000
	for _, path := range []string{"/huge", "/bomb"} {
		start := time.Now()
		res, err := p.Fetch(t.Context(), ts.origin("fetch.test")+path, "")
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !res.Truncated || res.Bytes != 1000 || len(res.Text) != 1000 {
			t.Errorf("%s: truncated %v, %d bytes, %d text", path, res.Truncated, res.Bytes, len(res.Text))
		}
		if d := time.Since(start); d > 10*time.Second { // 1 GiB would take far longer
			t.Errorf("%s took %s", path, d)
		}
	}
}

func TestFetch_B4_SlowServer(t *testing.T) {
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			fmt.Fprint(w, "first bytes")
			w.(http.Flusher).Flush()
		}
		select { // slow headers or a stalled body
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	p := ts.policy(true, "fetch.test")
	p.Timeout = 300 * time.Millisecond
	for _, path := range []string{"/slow-body", "/slow-headers"} {
		start := time.Now()
		_, err := p.Fetch(t.Context(), ts.origin("fetch.test")+path, "")
		if !errors.Is(err, ErrFetchTimeout) {
			t.Errorf("%s: err = %v; want ErrFetchTimeout", path, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s took %s", path, d)
		}
	}
	// The caller's cancellation is not a timeout.
	p.Timeout = 5 * time.Second
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := p.Fetch(ctx, ts.origin("fetch.test")+"/slow-body", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestFetch_B4_ContentTypes(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	ts := newTestServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		case "/sniffed":
			w.Header()["Content-Type"] = nil // no type: sniffed
			w.Write(png)
		case "/nul":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("a\x00b"))
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			w.Write([]byte("caf\xe9"))
		case "/missing":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "application/vnd.api+json")
			fmt.Fprint(w, `{"a":1}`)
		}
	})
	p := ts.policy(true, "fetch.test")
	cases := []struct {
		path, method, text string
		status             int
		binary             bool
	}{
		{"/png", "GET", "binary content (image/png, 108 bytes)", 200, true},
		{"/sniffed", "GET", "binary content (image/png, 108 bytes)", 200, true},
		{"/nul", "GET", "binary content (text/plain, 3 bytes)", 200, true},
		{"/latin1", "GET", "caf\uFFFD", 200, false},
		{"/missing", "GET", "404 page not found\n", 404, false},
		{"/json", "GET", `{"a":1}`, 200, false},
		{"/json", "HEAD", "", 200, false},
	}
	for _, c := range cases {
		res, err := p.Fetch(t.Context(), ts.origin("fetch.test")+c.path, c.method)
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.path, err)
			continue
		}
		if res.Text != c.text || res.StatusCode != c.status || res.Binary != c.binary {
			t.Errorf("%s %s: %d %q binary=%v; want %d %q", c.method, c.path, res.StatusCode, res.Text, res.Binary, c.status, c.text)
		}
	}
	if !strings.HasPrefix(cases[0].text, "binary content") {
		t.Fatal("unreachable")
	}
}
