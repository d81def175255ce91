package command

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite "+tsFile)

// tsFile is the VS Code extension's mirror of this package.
const tsFile = "../../editors/vscode/src/protocol.ts"

// TestTypeScript regenerates the TypeScript mirror of this package in
// memory and fails when the checked-in file differs: run go generate (or
// this test with -update) after changing a wire shape.
func TestTypeScript(t *testing.T) {
	got, err := generateTypeScript(".")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(tsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(tsFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Errorf("%s is stale; run go generate ./lspserver/command (-checked in +generated):\n%s", tsFile, diff)
	}
}

// TestTypeScript_Mapping shows the generator's rules on a small package:
// optional (omitempty, ts:"optional") and nullable (a pointer without
// omitempty) members, embedding, unions from typed constants, arrays, the
// LSP Range import, and refusal of what it cannot map.
func TestTypeScript_Mapping(t *testing.T) {
	dir := t.TempDir()
	src := `// Package x is a test.
package x

import "go.lsp.dev/protocol"

// Greeting is said first.
const Greeting = "hello"

// Names lists them.
var Names = []string{Greeting}

// Color is a color.
type Color string

// The colors.
const (
	Red  Color = "red"
	Blue Color = "blue"
)

// Base is embedded.
type Base struct {
	// ID names it.
	ID string ` + "`json:\"id\"`" + `
}

// Thing has every kind of member.
type Thing struct {
	Base
	Count  int             ` + "`json:\"count\"`" + `
	Maybe  *string         ` + "`json:\"maybe\"`" + `
	Opt    *protocol.Range ` + "`json:\"opt,omitempty\"`" + `
	Soft   bool            ` + "`json:\"soft\" ts:\"optional\"`" + `
	Colors []Color         ` + "`json:\"colors,omitempty\"`" + `
	Tags   map[string]bool ` + "`json:\"tags\"`" + `
	Hidden string          ` + "`json:\"-\"`" + `
}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := generateTypeScript(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(got), "\n\n")
	want := `import type { Range } from 'vscode-languageclient/node';

/** Greeting is said first. */
export const Greeting = 'hello';

/** Names lists them. */
export const Names: readonly string[] = [Greeting];

/** Color is a color. */
export type Color = 'red' | 'blue';

/** Base is embedded. */
export interface Base {
	/** ID names it. */
	id: string;
}

/** Thing has every kind of member. */
export interface Thing extends Base {
	count: number;
	maybe: string | null;
	opt?: Range;
	soft?: boolean;
	colors?: Color[];
	tags: Record<string, boolean>;
}
`
	if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(body, "\n")); diff != "" {
		t.Errorf("generated TypeScript (-want +got):\n%s\n%s", diff, got)
	}

	for _, bad := range []string{
		"type T struct { F chan int `json:\"f\"` }",
		"type T struct { F string }",
		"type T struct { F float32 `json:\"f\"` }",
		"type T struct { F net.IP `json:\"f\"` }",
		"const N = 3",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\n"+bad+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := generateTypeScript(dir); err == nil {
			t.Errorf("%s: generated without an error", bad)
		}
	}
}

// generateTypeScript renders the exported constants, variables and types
// of the Go package in dir as TypeScript.
func generateTypeScript(dir string) ([]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, "_test.go") })
	slices.Sort(names)
	g := &tsGen{unions: map[string][]string{}, types: map[string]bool{}}
	fset := token.NewFileSet()
	hash := sha256.New()
	var files []*ast.File
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(hash, "%s\x00%s\x00", filepath.Base(name), src)
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	for _, f := range files { // types and typed constants first
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			switch {
			case ok && gd.Tok == token.CONST:
				g.collectUnions(gd)
			case ok && gd.Tok == token.TYPE:
				for _, spec := range gd.Specs {
					g.types[spec.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			if err := g.decl(gd); err != nil {
				return nil, fmt.Errorf("%s: %v", fset.Position(gd.Pos()), err)
			}
		}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "// Code generated by `go generate ./lspserver/command` (TestTypeScript) from the Go package; DO NOT EDIT.\n")
	fmt.Fprintf(&out, "// Source: lspserver/command (%s), sha256 %x.\n\n", strings.Join(baseNames(names), ", "), hash.Sum(nil))
	if g.usesRange {
		out.WriteString("import type { Range } from 'vscode-languageclient/node';\n\n")
	}
	out.WriteString(strings.TrimSuffix(g.body.String(), "\n"))
	return out.Bytes(), nil
}

func baseNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

type tsGen struct {
	body      bytes.Buffer
	unions    map[string][]string // string type → its constants' values, quoted
	types     map[string]bool     // the package's type names
	usesRange bool
}

func (g *tsGen) collectUnions(gd *ast.GenDecl) {
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		typ, ok := vs.Type.(*ast.Ident)
		if !ok {
			continue
		}
		for _, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				g.unions[typ.Name] = append(g.unions[typ.Name], tsString(s))
			}
		}
	}
}

func (g *tsGen) decl(gd *ast.GenDecl) error {
	for _, spec := range gd.Specs {
		var err error
		switch s := spec.(type) {
		case *ast.ValueSpec:
			err = g.value(gd, s)
		case *ast.TypeSpec:
			err = g.typ(gd, s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// value renders an untyped string constant, or a []string variable of
// constants; typed constants are the members of their type's union.
func (g *tsGen) value(gd *ast.GenDecl, vs *ast.ValueSpec) error {
	if vs.Type != nil && gd.Tok == token.CONST {
		if _, ok := g.unions[fmt.Sprint(vs.Type)]; ok {
			return nil
		}
	}
	for i, name := range vs.Names {
		if !name.IsExported() {
			continue
		}
		if i >= len(vs.Values) {
			return fmt.Errorf("%s has no value", name.Name)
		}
		doc := vs.Doc
		if doc == nil && len(gd.Specs) == 1 {
			doc = gd.Doc
		}
		switch v := vs.Values[i].(type) {
		case *ast.BasicLit:
			if v.Kind != token.STRING || gd.Tok != token.CONST {
				return fmt.Errorf("%s: only string constants are mirrored", name.Name)
			}
			s, _ := strconv.Unquote(v.Value)
			g.comment("", doc)
			fmt.Fprintf(&g.body, "export const %s = %s;\n\n", name.Name, tsString(s))
		case *ast.CompositeLit:
			arr, ok := v.Type.(*ast.ArrayType)
			if !ok || arr.Len != nil || fmt.Sprint(arr.Elt) != "string" {
				return fmt.Errorf("%s: only []string variables are mirrored", name.Name)
			}
			var elems []string
			for _, e := range v.Elts {
				id, ok := e.(*ast.Ident)
				if !ok {
					return fmt.Errorf("%s: the elements must be constants", name.Name)
				}
				elems = append(elems, id.Name)
			}
			g.comment("", doc)
			fmt.Fprintf(&g.body, "export const %s: readonly string[] = [%s];\n\n", name.Name, strings.Join(elems, ", "))
		default:
			return fmt.Errorf("%s: cannot mirror %T", name.Name, v)
		}
	}
	return nil
}

func (g *tsGen) typ(gd *ast.GenDecl, ts *ast.TypeSpec) error {
	if !ts.Name.IsExported() {
		return nil
	}
	doc := ts.Doc
	if doc == nil && len(gd.Specs) == 1 {
		doc = gd.Doc
	}
	switch t := ts.Type.(type) {
	case *ast.Ident:
		members, ok := g.unions[ts.Name.Name]
		if t.Name != "string" || !ok {
			return fmt.Errorf("%s: only string types with constants are mirrored", ts.Name.Name)
		}
		g.comment("", doc)
		fmt.Fprintf(&g.body, "export type %s = %s;\n\n", ts.Name.Name, strings.Join(members, " | "))
		return nil
	case *ast.StructType:
		var extends []string
		var fields bytes.Buffer
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 {
				id, ok := f.Type.(*ast.Ident)
				if !ok {
					return fmt.Errorf("%s: only local structs can be embedded", ts.Name.Name)
				}
				extends = append(extends, id.Name)
				continue
			}
			tag := reflect.StructTag("")
			if f.Tag != nil {
				s, _ := strconv.Unquote(f.Tag.Value)
				tag = reflect.StructTag(s)
			}
			jsonTag, ok := tag.Lookup("json")
			if !ok {
				return fmt.Errorf("%s.%s has no json tag", ts.Name.Name, f.Names[0].Name)
			}
			name, opts, _ := strings.Cut(jsonTag, ",")
			if name == "-" {
				continue
			}
			optional := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool {
				return o == "omitempty" || o == "omitzero"
			}) || tag.Get("ts") == "optional"
			typ, nullable, err := g.tsType(f.Type)
			if err != nil {
				return fmt.Errorf("%s.%s: %v", ts.Name.Name, f.Names[0].Name, err)
			}
			if nullable && !optional {
				typ += " | null"
			}
			g.commentTo(&fields, "\t", f.Doc)
			q := ""
			if optional {
				q = "?"
			}
			fmt.Fprintf(&fields, "\t%s%s: %s;\n", name, q, typ)
		}
		g.comment("", doc)
		ext := ""
		if len(extends) > 0 {
			ext = " extends " + strings.Join(extends, ", ")
		}
		fmt.Fprintf(&g.body, "export interface %s%s {\n%s}\n\n", ts.Name.Name, ext, fields.String())
		return nil
	}
	return fmt.Errorf("%s: cannot mirror %T", ts.Name.Name, ts.Type)
}

// tsType maps a field's Go type; nullable is set for pointers.
func (g *tsGen) tsType(e ast.Expr) (typ string, nullable bool, err error) {
	switch t := e.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return "string", false, nil
		case "bool":
			return "boolean", false, nil
		case "int", "int32", "int64", "uint32", "float64":
			return "number", false, nil
		}
		if t.IsExported() && g.types[t.Name] {
			return t.Name, false, nil
		}
	case *ast.StarExpr:
		typ, _, err := g.tsType(t.X)
		return typ, true, err
	case *ast.ArrayType:
		if t.Len == nil {
			elt, nullable, err := g.tsType(t.Elt)
			if nullable {
				elt = "(" + elt + " | null)"
			}
			return elt + "[]", false, err
		}
	case *ast.MapType:
		if fmt.Sprint(t.Key) == "string" {
			v, _, err := g.tsType(t.Value)
			return "Record<string, " + v + ">", false, err
		}
	case *ast.SelectorExpr:
		switch fmt.Sprintf("%s.%s", t.X, t.Sel) {
		case "protocol.Range":
			g.usesRange = true
			return "Range", false, nil
		case "json.RawMessage":
			return "unknown", false, nil
		}
	}
	return "", false, fmt.Errorf("no TypeScript for %s", exprString(e))
}

func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.Ident:
		return t.Name
	}
	return fmt.Sprintf("%T", e)
}

func (g *tsGen) comment(indent string, doc *ast.CommentGroup) { g.commentTo(&g.body, indent, doc) }

// docLink is a Go doc link, [Name] or [Name.Field].
var docLink = regexp.MustCompile(`\[([A-Z][A-Za-z0-9]*(\.[A-Za-z0-9]+)?)\]`)

func (g *tsGen) commentTo(b *bytes.Buffer, indent string, doc *ast.CommentGroup) {
	if doc == nil {
		return
	}
	text := strings.TrimSpace(docLink.ReplaceAllString(doc.Text(), "$1"))
	text = strings.ReplaceAll(text, "*/", "* /")
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		fmt.Fprintf(b, "%s/** %s */\n", indent, lines[0])
		return
	}
	fmt.Fprintf(b, "%s/**\n", indent)
	for _, l := range lines {
		fmt.Fprintf(b, "%s%s\n", indent, strings.TrimRight(" * "+l, " "))
	}
	fmt.Fprintf(b, "%s */\n", indent)
}

// tsString quotes s as a single-quoted TypeScript string.
func tsString(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}
