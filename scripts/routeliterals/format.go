package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
)

// routeTokens returns what names a route of the table: its name, and each literal segment
// of its pattern after the API prefix and of its file and packed file after the API's
// folder (a folder such as "matrix-months", a file such as "life-path.json").
func routeTokens() map[string]string {
	out := map[string]string{}
	add := func(tok, route string) {
		if tok != "" && !strings.ContainsAny(tok, "{}") {
			if _, ok := out[tok]; !ok {
				out[tok] = route
			}
		}
	}
	for _, r := range generator.Routes() {
		add(r.Name, r.Name)
		paths := []string{strings.TrimPrefix(r.Pattern, manifest.APIPrefix), strings.TrimPrefix(r.File, manifest.APIDir)}
		if r.Packed != nil {
			paths = append(paths, strings.TrimPrefix(r.Packed.File, manifest.APIDir))
		}
		for _, p := range paths {
			for _, seg := range strings.Split(p, "/") {
				add(seg, r.Name)
			}
		}
	}
	return out
}

// checkFormat reports, as file:line: lines, every string literal of the Go sources of dir
// (test files aside) that names a route: one that is a route's token (routeTokens) or has
// one as a segment between slashes. The tree's format knows no route (docs/design.md §12,
// §13): routes are rows of the table the generator writes into the tree.
func checkFormat(dir string) (problems []string, err error) {
	tokens := routeTokens()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, seg := range strings.Split(s, "/") {
				if route, ok := tokens[seg]; ok {
					problems = append(problems, fmt.Sprintf("%s: %s names the route %s", fset.Position(lit.Pos()), lit.Value, route))
					break
				}
			}
			return true
		})
	}
	return problems, nil
}

// runFormat is the -format mode: it prints what checkFormat finds in each of dirs and
// exits 1 if anything, 2 if a source cannot be read.
func runFormat(dirs []string) {
	bad := false
	for _, dir := range dirs {
		problems, err := checkFormat(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "routeliterals:", err)
			os.Exit(2)
		}
		for _, p := range problems {
			fmt.Println(p)
			bad = true
		}
	}
	if bad {
		os.Exit(1)
	}
}
