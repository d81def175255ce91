package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// TestReadConfigFile_T20_HostileFiles: a project's configuration file is
// untrusted input (issue 10 item 8). Each hostile form is refused promptly,
// with an error that names the file and never echoes what lies behind it.
func TestReadConfigFile_T20_HostileFiles(t *testing.T) {
	const rel = ".agentls/policy.json"
	cases := []struct {
		name  string
		setup func(t *testing.T, fx sandboxtest.Fixture, name string)
		want  error
	}{
		{"symlink to /dev/zero", func(t *testing.T, _ sandboxtest.Fixture, name string) {
			must(t, os.Symlink("/dev/zero", name))
		}, nil},
		{"relative symlink to /dev/zero", func(t *testing.T, fx sandboxtest.Fixture, name string) {
			rel, err := filepath.Rel(filepath.Dir(name), "/dev/zero")
			must(t, err)
			must(t, os.Symlink(rel, name))
		}, nil},
		{"FIFO", func(t *testing.T, _ sandboxtest.Fixture, name string) { sandboxtest.Mkfifo(t, name) }, ErrNotRegular},
		{"symlink to a FIFO inside", func(t *testing.T, fx sandboxtest.Fixture, name string) {
			sandboxtest.Mkfifo(t, filepath.Join(fx.Root, "pipe"))
			must(t, os.Symlink("../pipe", name))
		}, ErrNotRegular},
		{"symlink outside", func(t *testing.T, fx sandboxtest.Fixture, name string) {
			must(t, os.Symlink(filepath.Join(fx.Outside, "secret.txt"), name))
		}, nil},
		{"relative symlink outside", func(t *testing.T, fx sandboxtest.Fixture, name string) {
			must(t, os.Symlink("../../outside/secret.txt", name))
		}, nil},
		{"directory", func(t *testing.T, _ sandboxtest.Fixture, name string) { must(t, os.Mkdir(name, 0o755)) }, ErrNotRegular},
		{"too large", func(t *testing.T, _ sandboxtest.Fixture, name string) {
			must(t, os.WriteFile(name, []byte(strings.Repeat(" ", MaxConfigBytes+1)), 0o644))
		}, ErrTooLarge},
		{"missing", func(*testing.T, sandboxtest.Fixture, string) {}, fs.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := sandboxtest.NewFixture(t)
			name := filepath.Join(fx.Root, filepath.FromSlash(rel))
			sandboxtest.MustMkdir(t, filepath.Dir(name))
			c.setup(t, fx, name)
			var err error
			noBlock(t, func() { _, err = ReadConfigFile(fx.Root, rel, 0) })
			if err == nil {
				t.Fatal("read succeeded")
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			if msg := err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, fx.Outside) || strings.Contains(msg, "/dev/zero") {
				t.Errorf("error leaks what lies behind the file: %s", msg)
			}
			if !strings.Contains(err.Error(), rel) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestReadConfigFile_T20_RegularFiles(t *testing.T) {
	fx := sandboxtest.NewFixture(t)
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, ".agentls/real.json"), `{"deny":[]}`)
	must(t, os.Symlink("real.json", filepath.Join(fx.Root, ".agentls/policy.json")))
	b, err := ReadConfigFile(fx.Root, ".agentls/policy.json", 0)
	if err != nil || string(b) != `{"deny":[]}` {
		t.Fatalf("symlink inside: %q, %v", b, err)
	}
	if _, err := ReadConfigFile(fx.Root, ".agentls/policy.json", 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over max: %v", err)
	}
}

// TestReadRegularFile_T20: the user's own file may be a symlink anywhere,
// but never a FIFO or device, and is capped.
func TestReadRegularFile_T20(t *testing.T) {
	fx := sandboxtest.NewFixture(t)
	link := filepath.Join(fx.Root, "user.json")
	must(t, os.Symlink(filepath.Join(fx.Outside, "secret.txt"), link))
	if b, err := ReadRegularFile(link, 0); err != nil || string(b) != "TOP SECRET\n" {
		t.Errorf("symlinked user file: %q, %v", b, err)
	}
	fifo := filepath.Join(fx.Root, "fifo.json")
	sandboxtest.Mkfifo(t, fifo)
	zero := filepath.Join(fx.Root, "zero.json")
	must(t, os.Symlink("/dev/zero", zero))
	for _, name := range []string{fifo, zero} {
		var err error
		noBlock(t, func() { _, err = ReadRegularFile(name, 0) })
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: err = %v, want not regular", filepath.Base(name), err)
		}
	}
	big := filepath.Join(fx.Root, "big.json")
	sandboxtest.MustWrite(t, big, "0123456789")
	if _, err := ReadRegularFile(big, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over max: %v", err)
	}
	if _, err := ReadRegularFile(filepath.Join(fx.Root, "none.json"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
