package netguard

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
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
		if !res.Truncated || len(res.Body) != 1000 {
			t.Errorf("%s: truncated %v, %d bytes", path, res.Truncated, len(res.Body))
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
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: err = %v; want ErrTimeout", path, err)
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

// TestFetch_B4_ContentTypes checks the media type Fetch reports, sniffed
// when the server sends none, and the body and size it hands back;
// tools renders them for the model.
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
		path, method, ctype, body string
		status                    int
		size                      int64
	}{
		{"/png", "GET", "image/png", string(png), 200, 108},
		{"/sniffed", "GET", "image/png", string(png), 200, 108},
		{"/latin1", "GET", "text/plain", "caf\xe9", 200, 4},
		{"/missing", "GET", "text/plain", "404 page not found\n", 404, 19},
		{"/json", "GET", "application/vnd.api+json", `{"a":1}`, 200, 7},
		{"/json", "HEAD", "application/vnd.api+json", "", 200, 7}, // the declared length
	}
	for _, c := range cases {
		res, err := p.Fetch(t.Context(), ts.origin("fetch.test")+c.path, c.method)
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.path, err)
			continue
		}
		if res.ContentType != c.ctype || string(res.Body) != c.body || res.StatusCode != c.status || res.Size != c.size {
			t.Errorf("%s %s: %d %s %q size %d; want %d %s %q size %d", c.method, c.path,
				res.StatusCode, res.ContentType, res.Body, res.Size, c.status, c.ctype, c.body, c.size)
		}
	}
}
