package shell

import (
	"maps"
	"slices"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/sandbox"
)

// analyzer holds the state of one Analyze call.
type analyzer struct {
	pol               *Policy
	root, home        string // cleaned absolute paths; home may be ""
	maxBytes, maxCmds int
	best              verdict
	cmds              []string
	ncmds, depth      int
	budget            int // work units left for re-walking loop bodies
	globBudget        int // directory entries left for expanding globs
	recount           int // > 0 while commands are analysed again (not counted)
	st                state
	inSubst, inPipe   int  // nesting of substitutions and pipelines
	secretFlow        bool // a secret was read earlier in this pipeline or statement
	repoFlow          bool // a workspace file was read earlier in this pipeline or statement
	secretVar         bool // the current command expands a secret-looking variable
	echoed            []string
	echoedOK          bool              // echoed holds the static words the last command echoed
	downloads         []string          // pathKeys of files written by network commands
	scripts           map[string]string // pathKey → text written by echo, cat <<EOF, …
	links             []linkRec         // links created by ln
	linkDepth         int
	probing           int      // > 0 while candidates are tried: nothing is recorded
	writes            []field  // write targets of the last redirections
	tainted           []string // pathKeys of files the command filled with secrets
	pcache            *[8]classified
	pn, pi            int               // entries used in pcache; next slot to fill
	cwd0              [1]string         // the first working directory
	parts             []part            // the simple commands found (see commands.go)
	syntax            part              // decisions that belong to no command
	cur               int               // index+1 of the current part; 0 the syntax entry, -1 none
	quiet             int               // > 0 while a decision is noted again: nothing is recorded
	capt              *capture          // set while a user's command rule decides (see commands.go)
	control           []string          // control files (E15) the command writes, workspace-relative
	gitRepos          map[string]string // working directory → program its repository configures (gitrepo.go)
	envPrefix         []string          // NAME=value the command line puts in the current command's environment
}

// linkRec is a link created by the command: pathKey of the link, and the
// word it points to.
type linkRec struct{ key, target string }

// state is what a shell carries from one command to the next. Its slices
// and maps are never modified in place, so copying a state is cheap.
type state struct {
	cwd   []string          // possible working directories (see pathInfo)
	stack [][]string        // pushd stack
	vars  map[string]string // statically known variable values
	funcs map[string]bool   // functions defined so far
	ints  map[string]bool   // variables declared integer (evalint.go)
}

// ioCtx describes the standard input of a command.
type ioCtx struct {
	pipeIn    bool   // stdin is a previous pipeline stage or feeds a >(…) substitution
	repoIn    bool   // what comes in on stdin may hold workspace content
	pipeDisp  string // the stages before, for messages
	pipeWords []string
	pipeKnown bool   // pipeWords are the exact words on stdin (echo … | xargs)
	feed      string // here-document or here-string text
	hasFeed   bool
	substIn   bool  // stdin comes from a process or command substitution
	secretIn  bool  // stdin is redirected from a secret file
	stdinFile field // the file stdin is redirected from, if any
	hasFile   bool
}

func (a *analyzer) stmts(ss []*syntax.Stmt, io ioCtx) {
	for _, s := range ss {
		if a.ncmds > a.maxCmds {
			return
		}
		if a.budget <= 0 {
			a.note(sandbox.Deny, "shell.too_complex", "", "the command needs too much work to analyse")
			return
		}
		if a.inSubst == 0 && a.inPipe == 0 {
			a.secretFlow, a.repoFlow = false, false
		}
		a.stmt(s, io)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt, io ioCtx) {
	if s.Background {
		a.note(sandbox.Ask, "shell.background", "… &", "runs a job in the background, which keeps running after the command line ends")
	}
	if c, ok := s.Cmd.(*syntax.CallExpr); ok {
		a.call(c, s.Redirs, io)
		return
	}
	io = a.redirects(s.Redirs, "", false, io)
	if s.Cmd != nil {
		a.command(s.Cmd, io)
	}
}

func (a *analyzer) command(c syntax.Command, io ioCtx) {
	switch c := c.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			a.pipeline(c, io)
			return
		}
		a.stmt(c.X, io)
		base := a.st
		a.stmt(c.Y, io) // && and ||: the right side may not run
		a.join(base, a.st)
	case *syntax.Subshell:
		saved := a.st
		a.stmts(c.Stmts, io)
		a.st = saved
	case *syntax.Block:
		a.stmts(c.Stmts, io)
	case *syntax.IfClause:
		a.ifClause(c, io)
	case *syntax.WhileClause:
		a.stmts(c.Cond, io)
		base := a.st
		a.stmts(c.Do, io)
		a.join(base, a.st)
	case *syntax.ForClause:
		a.forClause(c, io)
	case *syntax.CaseClause:
		a.substs(c.Word, false, "case")
		base := a.st
		outs := []state{base}
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.substs(p, false, "case")
			}
			a.st = base
			a.stmts(it.Stmts, io)
			outs = append(outs, a.st)
		}
		a.join(outs...)
	case *syntax.FuncDecl:
		a.funcDecl(c)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		a.substs(c, false, "")
		a.note(sandbox.Allow, "shell.read_only", "", "a test or arithmetic")
	case *syntax.DeclClause:
		a.decl(c)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			a.stmt(c.Stmt, io)
		}
	case *syntax.CoprocClause:
		a.note(sandbox.Ask, "shell.coproc", "coproc", "runs a coprocess")
		a.stmt(c.Stmt, io)
	default:
		a.note(sandbox.Ask, "shell.unsupported_syntax", "", "shell syntax the analyser does not handle")
	}
}

// pipeline analyses each stage as a subshell whose stdin is the stage
// before; nothing a stage changes survives the pipeline.
func (a *analyzer) pipeline(b *syntax.BinaryCmd, io ioCtx) {
	var stages []*syntax.Stmt
	var flat func(s *syntax.Stmt)
	flat = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			flat(bc.X)
			flat(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flat(b.X)
	flat(b.Y)
	saved := a.st
	a.inPipe++
	disp := ""
	flow := a.repoFlow
	a.repoFlow = io.repoIn // stage 0 passes on what the pipeline reads
	for i, s := range stages {
		a.st = saved
		sio := io
		if i > 0 {
			sio = ioCtx{pipeIn: true, repoIn: a.repoFlow, pipeDisp: disp, pipeWords: a.echoed, pipeKnown: a.echoedOK}
		}
		a.echoed, a.echoedOK = nil, false
		n := len(a.cmds)
		a.stmt(s, sio)
		if i > 0 {
			disp += " | "
		}
		for j, c := range a.cmds[n:] {
			if j > 0 {
				disp += "; "
			}
			disp += c
		}
	}
	a.inPipe--
	a.st = saved
	a.repoFlow = a.repoFlow || flow
}

func (a *analyzer) ifClause(c *syntax.IfClause, io ioCtx) {
	var outs []state
	for cl := c; cl != nil; cl = cl.Else {
		a.stmts(cl.Cond, io)
		base := a.st
		a.stmts(cl.Then, io)
		outs = append(outs, a.st)
		a.st = base
		if cl.Else == nil && len(cl.Cond) > 0 {
			outs = append(outs, base)
		}
	}
	a.join(outs...)
}

func (a *analyzer) forClause(c *syntax.ForClause, io ioCtx) {
	base := a.st
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		var items []field
		for _, w := range l.Items {
			a.substs(w, true, "for")
			items = a.wordFields(w, items)
		}
		static := len(l.Items) > 0 && len(items) <= 8 && a.budget >= len(items)
		for _, it := range items {
			static = static && !isDynamic(it.s)
		}
		a.loopInt(l.Name.Value, items, static)
		if static {
			a.budget -= len(items)
			outs := []state{base}
			for i, it := range items {
				a.st = base
				a.setVar(l.Name.Value, it.s)
				if i == 1 {
					a.recount++
					defer func() { a.recount-- }()
				}
				a.stmts(c.Do, io)
				outs = append(outs, a.st)
			}
			a.join(outs...)
			return
		}
		a.setVar(l.Name.Value, mUnknown+"$"+l.Name.Value)
	case *syntax.CStyleLoop:
		a.substs(l, false, "for")
	}
	a.stmts(c.Do, io)
	a.join(base, a.st)
}

// funcDecl asks for any function definition (it can shadow a command) and
// denies a fork bomb: a function that calls itself in a pipeline or in the
// background.
func (a *analyzer) funcDecl(c *syntax.FuncDecl) {
	name := ""
	if c.Name != nil {
		name = c.Name.Value
	}
	self, spawn := false, false
	syntax.Walk(c.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			spawn = spawn || n.Background || n.Coprocess
		case *syntax.BinaryCmd:
			spawn = spawn || n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == name {
				self = true
			}
		}
		return true
	})
	if self && spawn {
		a.note(sandbox.Deny, "shell.fork_bomb", name+"() { … }", "a function that spawns copies of itself (fork bomb)")
	}
	a.note(sandbox.Ask, "shell.function_definition", name+"() { … }", "defines a shell function, which can shadow commands")
	saved := a.st
	a.stmt(c.Body, ioCtx{})
	a.st = saved
	funcs := maps.Clone(a.st.funcs)
	if funcs == nil {
		funcs = map[string]bool{}
	}
	funcs[name] = true
	a.st.funcs = funcs
}

// substs analyses the command and process substitutions inside node, and
// asks when an argument expands a secret-looking variable.
func (a *analyzer) substs(node syntax.Node, args bool, who string) {
	if w, ok := node.(*syntax.Word); ok && simpleWord(w) {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		a.evalNode(n, who)
		switch n := n.(type) {
		case *syntax.CmdSubst:
			a.subshell(n.Stmts, ioCtx{})
			return false
		case *syntax.ProcSubst:
			a.subshell(n.Stmts, ioCtx{pipeIn: n.Op == syntax.CmdOut, repoIn: n.Op == syntax.CmdOut, pipeDisp: "…"})
			return false
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "IFS" {
				a.note(sandbox.Ask, "shell.ifs", who, "word splitting on $IFS hides where arguments begin")
			}
			if args && n.Param != nil && secretVarName(n.Param.Value) {
				a.note(sandbox.Ask, "shell.secret_variable", who, "expands a variable that looks like a secret")
				a.secretVar = true
			}
		}
		return true
	})
}

func (a *analyzer) subshell(ss []*syntax.Stmt, io ioCtx) {
	saved := a.st
	a.inSubst++
	a.stmts(ss, io)
	a.inSubst--
	a.st = saved
}

// setVar records a variable's value for later expansions.
func (a *analyzer) setVar(name, val string) {
	vars := make(map[string]string, len(a.st.vars)+1)
	maps.Copy(vars, a.st.vars)
	vars[name] = val
	a.st.vars = vars
}

// join merges the states after alternative branches: every possible
// working directory is kept, and a variable that differs becomes unknown.
func (a *analyzer) join(outs ...state) {
	if len(outs) == 0 {
		return
	}
	res := outs[0]
	for _, o := range outs[1:] {
		cwd := res.cwd
		for _, d := range o.cwd {
			if !slices.Contains(cwd, d) {
				cwd = append(slices.Clip(cwd), d)
			}
		}
		if len(cwd) > 4 {
			cwd = []string{mUnknown}
		}
		res.cwd = cwd
		if !maps.Equal(res.vars, o.vars) {
			vars := maps.Clone(res.vars)
			if vars == nil {
				vars = map[string]string{}
			}
			for k, v := range o.vars {
				if rv, ok := vars[k]; !ok || rv != v {
					vars[k] = joinValue(k, rv, v)
				}
			}
			for k, v := range vars {
				if _, ok := o.vars[k]; !ok {
					vars[k] = joinValue(k, v, "")
				}
			}
			res.vars = vars
		}
		res.funcs = unionSet(res.funcs, o.funcs)
		res.ints = unionSet(res.ints, o.ints)
		if len(o.stack) != len(res.stack) {
			res.stack = nil
		}
	}
	a.st = res
}

// unionSet is the union of two sets that are never modified in place.
func unionSet(x, y map[string]bool) map[string]bool {
	if maps.Equal(x, y) {
		return x
	}
	u := maps.Clone(x)
	if u == nil {
		u = map[string]bool{}
	}
	maps.Copy(u, y)
	return u
}

// joinValue is a variable's value after branches that left it different
// (or unset, ""): unknown, but a number when each branch left a number
// or nothing, so that arithmetic on a counter stays decidable (T21).
func joinValue(name, v, w string) string {
	if numberValue(v) && numberValue(w) {
		return mArith
	}
	return mUnknown + "$" + name
}

func numberValue(v string) bool {
	if v == "" || v == mArith {
		return true
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) && !(i == 0 && v[i] == '-' && len(v) > 1) {
			return false
		}
	}
	return true
}
