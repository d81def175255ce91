// Command searchgen writes a deterministic tree of source-like files for
// the search benchmark (testdata/bench/search.sh, issue 27 item 1):
//
//	go run ./testdata/searchgen -out DIR [-files 30000]
//
// The tree is d000/s00/f000.go … d099/s14/f019.go (100×15×20 = 30,000
// files, about 45 MB), the same bytes on every run. What the benchmark
// looks for:
//
//   - no file holds "NOWHERE_TO_BE_FOUND_0xfeed";
//   - about 1 line in 2,000 start with "func Bench";
//   - "ZEBRA_LAST_7f3a" is only in the last file walked, d099/s14/f019.go,
//     and in files that .gitignore rules exclude (build/, *.log, and
//     d050/generated_*.go except the re-included d050/generated_keep.go,
//     which holds it too), so a search that ignores .gitignore lists more;
//   - bin.dat starts with a NUL byte and holds every token: binary files
//     are skipped.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

var words = []string{"alpha", "beta", "buffer", "channel", "context", "delta", "error", "fmt", "handler",
	"index", "kernel", "layer", "mutex", "node", "offset", "parse", "queue", "reader", "server", "token",
	"value", "writer", "yield", "zone", "ctx", "err", "nil", "return", "if", "for", "range", "struct"}

func main() {
	out := flag.String("out", "", "directory to write the tree into (created)")
	files := flag.Int("files", 30000, "number of files (a multiple of 300)")
	flag.Parse()
	if *out == "" || *files <= 0 || *files%300 != 0 {
		fmt.Fprintln(os.Stderr, "usage: searchgen -out DIR [-files N, a multiple of 300]")
		os.Exit(2)
	}
	if err := generate(*out, *files/300); err != nil {
		fmt.Fprintln(os.Stderr, "searchgen:", err)
		os.Exit(1)
	}
}

func generate(out string, dirs int) error {
	rng := rand.New(rand.NewPCG(27, 1))
	for d := range dirs {
		for s := range 15 {
			for f := range 20 {
				name := filepath.Join(out, fmt.Sprintf("d%03d", d), fmt.Sprintf("s%02d", s), fmt.Sprintf("f%03d.go", f))
				last := d == dirs-1 && s == 14 && f == 19
				if err := writeSource(name, rng, last); err != nil {
					return err
				}
			}
		}
	}
	extra := map[string]string{
		".gitignore":                    "# build output\nbuild/\n*.log\n",
		"build/out.go":                  "ZEBRA_LAST_7f3a in an ignored directory\n",
		"d001/trace.log":                "ZEBRA_LAST_7f3a in an ignored file\n",
		"d050/.gitignore":               "generated_*.go\n!generated_keep.go\n",
		"d050/generated_a.go":           "ZEBRA_LAST_7f3a generated, ignored\n",
		"d050/generated_keep.go":        "ZEBRA_LAST_7f3a generated, re-included\n",
		"bin.dat":                       "\x00ZEBRA_LAST_7f3a func Bench NOWHERE_TO_BE_FOUND_0xfeed\n",
		"d010/s03/nested/.gitignore":    "/only_here.txt\n",
		"d010/s03/nested/only_here.txt": "ZEBRA_LAST_7f3a anchored ignore\n",
		"d010/s03/only_here.txt":        "func Bench is not ignored here\n",
	}
	for rel, content := range extra {
		if err := write(filepath.Join(out, rel), content); err != nil {
			return err
		}
	}
	return nil
}

// writeSource writes about 40 lines of Go-like text.
func writeSource(name string, rng *rand.Rand, last bool) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "package %s\n\n", filepath.Base(filepath.Dir(name)))
	for i := range 40 {
		switch {
		case last && i == 20:
			fmt.Fprintln(w, "\t// ZEBRA_LAST_7f3a: the one match in the last file walked")
		case rng.IntN(2000) == 0:
			fmt.Fprintf(w, "func Bench%s%d(b *testing.B) {}\n", words[rng.IntN(len(words))], i)
		default:
			fmt.Fprint(w, "\t")
			for range 3 + rng.IntN(8) {
				fmt.Fprint(w, words[rng.IntN(len(words))], " ")
			}
			fmt.Fprintln(w)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func write(name, content string) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(content), 0o644)
}
