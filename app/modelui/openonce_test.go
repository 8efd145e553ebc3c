package modelui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Issue 18: the app opens a model through engine.Source only: not through the download
// package's validation, not by inspecting the folder again (engine.Inspect, engine.Open,
// estimate.ForFolder) in the files that choose and check the model (those that run it:
// package app's TestModelOpenedOnce).
func TestModelOpenedOnce(t *testing.T) {
	banned := map[string]bool{"download.Validate": true, "engine.Inspect": true, "engine.Open": true, "estimate.ForFolder": true}
	for _, file := range []string{"modelsource.go", "modeldialog.go", "modeldrop.go", "modelpanel.go", "open.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			fn, ok := n.(*ast.FuncDecl)
			if ok && fn.Name.Name == "inspectModel" { // the downloader's check of a finished download
				return false
			}
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
					t.Errorf("%s calls %s.%s", file, x.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
