// Package testhome gives a test binary a home folder of its own, for tests only: Main runs
// the tests with HOME and the XDG folders (and Windows' profile folders) in a temporary
// folder that is removed afterwards, so that no test writes into the user's cache,
// configuration or data (issue 37: `go test .` and `go test ./cli` left prompt embeddings in
// ~/.cache/kleinbild). Go's own build cache, module cache and configuration stay where they
// were, so a test that runs `go build` does not rebuild everything.
package testhome

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Main runs m with a temporary home (see Isolate) and returns its exit code, for TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }
func Main(m *testing.M) int {
	remove, err := Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 2
	}
	defer remove()
	return m.Run()
}

// userVars are the variables that name the user's folders, each set to a folder of its own
// under the temporary home.
var userVars = []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA"}

// Isolate points the user's folders (userVars) into a new temporary folder, after pinning
// Go's own folders (goFolders) to where they are now; remove deletes the
// temporary folder. It changes the process's environment: call it before any test runs.
//
// A test binary started by a test (a child process, which may end with os.Exit) keeps the
// temporary home of its parent, which the parent removes.
func Isolate() (remove func(), err error) {
	if root := os.Getenv(rootVar); root != "" {
		if st, err := os.Stat(root); err == nil && st.IsDir() {
			return func() {}, nil
		}
	}
	if err := pinGoFolders(); err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "kleinbild-test-home-")
	if err != nil {
		return nil, fmt.Errorf("temporary home: %w", err)
	}
	for _, v := range userVars {
		dir := filepath.Join(root, v)
		if err := os.Mkdir(dir, 0o700); err != nil {
			os.RemoveAll(root)
			return nil, fmt.Errorf("temporary home: %w", err)
		}
		os.Setenv(v, dir)
	}
	os.Setenv(rootVar, root)
	return func() { os.RemoveAll(root) }, nil
}

// rootVar holds the temporary home's folder while Isolate is in force.
const rootVar = "KLEINBILD_TEST_HOME"

// Check fails t unless the user's home, cache and configuration folders are in the
// temporary home of Isolate (the package's TestMain calls Main).
func Check(t testing.TB) {
	t.Helper()
	root := os.Getenv(rootVar)
	if root == "" {
		t.Fatal("the tests run in the user's own folders: TestMain must call testhome.Main")
	}
	for name, dir := range map[string]func() (string, error){"home": os.UserHomeDir, "cache": os.UserCacheDir, "config": os.UserConfigDir} {
		d, err := dir()
		if err != nil {
			t.Errorf("user %s folder: %v", name, err)
			continue
		}
		if rel, err := filepath.Rel(root, d); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("user %s folder %s is outside the temporary home %s", name, d, root)
		}
	}
}

// goFolders are the go command's settings that default to places in the user's folders.
var goFolders = []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}

// pinGoFolders sets goFolders, where unset, to the folders the go command uses now (they
// derive from the user's folders, which Isolate moves). Without a go command there is no
// build to keep.
func pinGoFolders() error {
	out, err := exec.Command("go", append([]string{"env"}, goFolders...)...).Output()
	if err != nil {
		return nil
	}
	values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(values) != len(goFolders) {
		return fmt.Errorf("go env printed %q", out)
	}
	for i, v := range goFolders {
		if os.Getenv(v) == "" && values[i] != "" {
			os.Setenv(v, values[i])
		}
	}
	return nil
}
