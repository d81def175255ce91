package shell

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// The sed checker and a small scanner of sed scripts.

// sedCmd checks the scripts (e runs commands, w writes files, r reads
// them) and the files, which -i writes in place.
func sedCmd(a *analyzer, c *call, s *cmdSpec) {
	a.note(s.dec, s.rule, c.disp, "edits text")
	args := c.args()
	var scripts, files []field
	given, inPlace := false, false
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case v == "--expression" || v == "--file":
			if i++; i < len(args) {
				scripts = append(scripts, sedScriptArg(a, c, args[i], v == "--file"))
			}
			given = true
		case strings.HasPrefix(v, "--expression="), strings.HasPrefix(v, "--file="):
			k, val, _ := strings.Cut(v, "=")
			scripts = append(scripts, sedScriptArg(a, c, field{s: val}, k == "--file"))
			given = true
		case strings.HasPrefix(v, "--in-place"):
			inPlace = true
		case v == "--line-length" || v == "-l":
			i++
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && v[0] == '-':
		cluster:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'i':
					inPlace = true
					break cluster
				case 'e', 'f':
					val := field{s: v[j+1:]}
					if j+1 == len(v) && i+1 < len(args) {
						i++
						val = args[i]
					}
					scripts = append(scripts, sedScriptArg(a, c, val, v[j] == 'f'))
					given = true
					break cluster
				case 'l':
					if j+1 == len(v) {
						i++
					}
					break cluster
				}
			}
		case !given:
			scripts = append(scripts, args[i])
			given = true
		default:
			files = append(files, args[i])
		}
	}
	for _, sc := range scripts {
		if isDynamic(sc.s) {
			a.note(sandbox.Ask, "shell.dynamic_code", c.disp, "the sed script is only known at run time")
			continue
		}
		exec, writes, reads, ok := sedScan(sc.s)
		switch {
		case !ok:
			a.note(sandbox.Ask, "shell.sed_script", c.disp, "a sed script the analyser cannot follow")
		case exec:
			a.note(sandbox.Deny, "shell.sed_exec", c.disp, "the sed script runs the text it edits as shell commands (e)")
		}
		for _, w := range writes {
			a.access(tildeField(w), accWrite, c.disp)
		}
		for _, r := range reads {
			a.access(tildeField(r), accRead, c.disp)
		}
	}
	for _, f := range files {
		if inPlace {
			a.access(f, accWrite, c.disp)
		} else if f.s != "-" {
			a.access(f, accRead, c.disp)
		}
	}
}

// sedScriptArg returns the script text of -e, or for -f reads the file
// and returns an unknown script.
func sedScriptArg(a *analyzer, c *call, f field, file bool) field {
	if !file {
		return f
	}
	a.access(f, accRead, c.disp)
	return field{s: mUnknown + "script"}
}

// sedScan follows a sed script command by command. It reports e commands
// and s///e (exec), the files of w, W and s///w (writes) and of r and R
// (reads); ok is false when the script uses anything it does not know.
func sedScan(sc string) (exec bool, writes, reads []string, ok bool) {
	n := len(sc)
	i := 0
	blank := func() {
		for i < n && (sc[i] == ' ' || sc[i] == '\t') {
			i++
		}
	}
	line := func() string {
		j := strings.IndexByte(sc[i:], '\n')
		if j < 0 {
			j = n - i
		}
		s := strings.TrimSpace(sc[i : i+j])
		i += j
		return s
	}
	for i < n {
		for i < n && strings.IndexByte(" \t\n;}", sc[i]) >= 0 {
			i++
		}
		if i >= n {
			break
		}
		if i = sedAddr(sc, i); i < 0 {
			return false, nil, nil, false
		}
		blank()
		if i < n && sc[i] == ',' {
			i++
			blank()
			if i = sedAddr(sc, i); i < 0 {
				return false, nil, nil, false
			}
		}
		blank()
		for i < n && sc[i] == '!' {
			i++
			blank()
		}
		if i >= n {
			return false, nil, nil, false
		}
		cmd := sc[i]
		i++
		switch cmd {
		case '{', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'q', 'Q', 'L':
			blank()
			for i < n && '0' <= sc[i] && sc[i] <= '9' {
				i++
			}
		case ':', 'b', 't', 'T', 'v':
			for i < n && sc[i] != ';' && sc[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c', '#':
			for i < n && sc[i] != '\n' {
				if sc[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R':
			reads = append(reads, line())
		case 'w', 'W':
			writes = append(writes, line())
		case 'e':
			exec = true
			line()
		case 's', 'y':
			if i >= n || sc[i] == '\\' || sc[i] == '\n' {
				return false, nil, nil, false
			}
			d := sc[i]
			if i = sedDelim(sc, i+1, d); i < 0 {
				return false, nil, nil, false
			}
			if i = sedDelim(sc, i, d); i < 0 {
				return false, nil, nil, false
			}
			for cmd == 's' && i < n && strings.IndexByte("gpiImMe0123456789w", sc[i]) >= 0 {
				if sc[i] == 'e' {
					exec = true
				}
				if sc[i] == 'w' {
					i++
					writes = append(writes, line())
					break
				}
				i++
			}
		default:
			return false, nil, nil, false
		}
	}
	return exec, writes, reads, true
}

// sedAddr skips an address at i: a line number, $, first~step, +N, ~N,
// /regex/ or \cregexc with I and M flags. It returns -1 on a bad one.
func sedAddr(sc string, i int) int {
	n := len(sc)
	switch {
	case i < n && (sc[i] == '/' || sc[i] == '\\'):
		d := byte('/')
		if sc[i] == '\\' {
			if i+1 >= n {
				return -1
			}
			d, i = sc[i+1], i+1
		}
		if i = sedDelim(sc, i+1, d); i < 0 {
			return -1
		}
		for i < n && (sc[i] == 'I' || sc[i] == 'M') {
			i++
		}
	case i < n && sc[i] == '$':
		i++
	default:
		for i < n && strings.IndexByte("0123456789~+", sc[i]) >= 0 {
			i++
		}
	}
	return i
}

// sedDelim returns the index after the next unescaped d, or -1.
func sedDelim(sc string, i int, d byte) int {
	for ; i < len(sc); i++ {
		switch sc[i] {
		case '\\':
			i++
		case d:
			return i + 1
		case '\n':
			if d != '\n' {
				return -1
			}
		}
	}
	return -1
}
