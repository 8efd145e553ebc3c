package safefile_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedOpens lists, as "file:function", the places that may call os.Open, os.OpenFile or
// os.ReadFile directly: the guarded reader itself and writers (they open for writing or
// open a folder to sync it). Every other read goes through safefile (issue 23 item 5).
var allowedOpens = map[string]bool{
	"internal/safefile/safefile.go:OpenRegular":      true,
	"internal/safefile/nonblock_unix.go:probeWrite":  true,
	"internal/safefile/nonblock_other.go:probeWrite": true,
	"internal/atomicfile/atomicfile.go:writeStream":  true, // a device or pipe, for writing
	"internal/atomicfile/atomicfile.go:syncDir":      true, // a folder, to sync a rename
	"download/state.go:openOSPart":                   true, // a part file, read-write
	"download/partfile.go:syncDir":                   true,
	"internal/fynelocale/fynelocale.go:init":         true,
	".ci/checkpng.go:main":                           true, // CI tool on CI's own output
	"app/settings/lock.go:LockDataDir":               true, // the data folder lock, read-write
	"console_windows.go:attachConsole":               true, // the console, for writing
	"internal/testfix/fault_unix.go:MapFile":         true, // tests only: a file to shrink under its mapping
}

// TestEveryReadIsGuarded parses the module's Go sources (tests excepted) and fails on a
// direct os.Open, os.OpenFile or os.ReadFile (or ioutil.ReadFile) outside allowedOpens.
// Reads of /proc files (a literal "/proc/..." path) are allowed: the kernel makes them.
func TestEveryReadIsGuarded(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "shared" || strings.HasPrefix(n, ".") && n != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			name := "init"
			if ok {
				name = fn.Name.Name
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				fun := pkg.Name + "." + sel.Sel.Name
				switch fun {
				case "os.Open", "os.OpenFile", "os.ReadFile", "ioutil.ReadFile":
				default:
					return true
				}
				if len(call.Args) > 0 {
					if lit, ok := call.Args[0].(*ast.BasicLit); ok {
						if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "/proc/") {
							return true
						}
					}
				}
				if !allowedOpens[rel+":"+name] {
					t.Errorf("%s: %s in %s reads outside the guarded reader: use safefile.OpenRegular or ReadRegular",
						fset.Position(call.Pos()), fun, name)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d Go files checked: is the module root %s?", checked, root)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
}
