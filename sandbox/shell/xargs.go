package shell

import (
	"slices"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Wrappers that run a command once per input word or value: xargs and
// GNU parallel, and watch, which runs a command line repeatedly.

// xargsCmd analyses the command xargs runs with the words it reads: the
// exact words when an echo or here-string feeds it, otherwise words that
// are only known at run time.
func xargsCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	replace := ""
	i := 0
scan:
	for ; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "--":
			i++
			break scan
		case len(v) < 2 || v[0] != '-' || isDynamic(v):
			break scan
		case v == "-a" || v == "--arg-file":
			if i++; i < len(args) {
				a.access(args[i], accRead, c.disp)
			}
		case strings.HasPrefix(v, "--arg-file="):
			a.access(field{s: v[len("--arg-file="):]}, accRead, c.disp)
		case v == "-I" || v == "--replace" || v == "-i":
			replace = "{}"
			if v == "-I" && i+1 < len(args) {
				i++
				replace = args[i].s
			}
		case strings.HasPrefix(v, "-I") || strings.HasPrefix(v, "-i") || strings.HasPrefix(v, "--replace="):
			replace = v[strings.IndexAny(v, "I=i")+1:]
		case len(v) == 2 && strings.IndexByte("dELnPse", v[1]) >= 0,
			slices.Contains([]string{"--delimiter", "--eof", "--max-lines", "--max-args", "--max-procs",
				"--max-chars", "--process-slot-var"}, v):
			i++
		}
	}
	cmd := slices.Clone(args[min(i, len(args)):])
	if len(cmd) == 0 {
		cmd = []field{{s: "echo"}}
	}
	var words []field
	switch {
	case c.io.pipeKnown && len(c.io.pipeWords) <= 16:
		for _, w := range c.io.pipeWords {
			words = append(words, field{s: w, glob: true})
		}
	case c.io.hasFeed && !isDynamic(c.io.feed) && len(strings.Fields(c.io.feed)) <= 16:
		for _, w := range strings.Fields(c.io.feed) {
			words = append(words, field{s: w, glob: true})
		}
	case c.io.pipeIn || c.io.substIn:
		words = []field{{s: mSubst + "…"}}
	default:
		words = []field{{s: mUnknown + "…"}}
	}
	sub := &call{io: ioCtx{}}
	if replace == "" {
		sub.argv = append(cmd, words...)
		sub.disp = display(sub.argv)
		a.exec(sub)
		return
	}
	for _, w := range words {
		argv := make([]field, len(cmd))
		for k, f := range cmd {
			argv[k] = field{s: strings.ReplaceAll(f.s, replace, w.s), glob: f.glob}
		}
		sub.argv, sub.disp = argv, display(argv)
		a.exec(sub)
	}
}

// watchCmd runs its arguments through sh -c (or directly with -x).
func watchCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	i, direct := 0, false
	for ; i < len(args) && strings.HasPrefix(args[i].s, "-"); i++ {
		v := args[i].s
		switch {
		case v == "-x" || v == "--exec":
			direct = true
		case v == "-n" || v == "--interval" || v == "-q" || v == "--equexit":
			i++
		}
	}
	if i >= len(args) {
		a.note(sandbox.Ask, "shell.interpreter", c.disp, "watch without a command")
		return
	}
	if direct {
		a.exec(c.sub(args[i:]))
		return
	}
	a.reparse(joinFields(args[i:]), c, sandbox.Allow, "", "")
}

func joinFields(fs []field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.s
	}
	return strings.Join(parts, " ")
}

// parallelCmd analyses GNU parallel's command template with each value
// given after ::: (or with values known only at run time).
func parallelCmd(a *analyzer, c *call, s *cmdSpec) {
	args := c.args()
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].s, "-"); i++ {
		v := args[i].s
		if v == "-S" || v == "--sshlogin" || strings.HasPrefix(v, "--sshlogin=") {
			a.note(sandbox.Ask, "shell.network", c.disp, "parallel runs commands on remote hosts")
		}
		if len(v) == 2 && strings.IndexByte("jnNSadEILPX", v[1]) >= 0 || slices.Contains([]string{"--jobs",
			"--sshlogin", "--arg-file", "--delimiter", "--colsep", "--tmpdir", "--results", "--joblog"}, v) {
			i++
		}
	}
	sep := len(args)
	for k := i; k < len(args); k++ {
		if strings.HasPrefix(args[k].s, ":::") {
			sep = k
			break
		}
	}
	tmpl := args[min(i, sep):sep]
	var vals []field
	if sep < len(args) && args[sep].s == ":::" {
		vals = args[sep+1:]
	}
	if len(vals) == 0 || len(vals) > 8 {
		vals = []field{{s: mUnknown + "…"}}
	}
	a.note(s.dec, s.rule, c.disp, s.reason)
	for _, v := range vals {
		if len(tmpl) == 0 {
			a.reparse(v.s, c, sandbox.Allow, "", "")
			continue
		}
		if len(tmpl) == 1 && strings.ContainsAny(tmpl[0].s, " \t;|&") {
			a.reparse(tmpl[0].s, c, sandbox.Ask, "shell.interpreter", "parallel runs a shell command line")
			continue
		}
		var argv []field
		used := false
		for _, f := range tmpl {
			if strings.Contains(f.s, "{") {
				used = true
				f = field{s: strings.NewReplacer("{}", v.s, "{.}", v.s, "{/}", v.s, "{//}", v.s, "{/.}", v.s).Replace(f.s), glob: f.glob}
			}
			argv = append(argv, f)
		}
		if !used {
			argv = append(argv, v)
		}
		a.exec(c.sub(argv))
	}
}
