package settings

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockDataDir: while one instance holds the data folder a second one is refused with a
// message naming it; after release it can take it (issue 23 item 9: two instances lost each
// other's gallery entries).
func TestLockDataDir(t *testing.T) {
	dir := t.TempDir()
	release, err := LockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDataDir(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second lock: %v", err)
	}
	release()
	release2, err := LockDataDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release2()
}

// lockHelperEnv makes the test binary a helper that takes the lock of the folder it names
// and exits without releasing it.
const lockHelperEnv = "KLEINBILD_LOCK_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockHelperEnv); dir != "" {
		if _, err := LockDataDir(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0) // no release: the process's end must free the folder
	}
	os.Exit(m.Run())
}

// Issue 28 item 1: a process that took the data folder and ended without releasing it (a
// crash, a kill) leaves no lock behind: the next start is not read-only.
func TestLockOfAnEndedProcessIsGone(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, LockName)); err != nil {
		t.Fatalf("the helper took no lock: %v", err)
	}
	release, err := LockDataDir(dir)
	if err != nil {
		t.Fatalf("lock after the holder ended: %v", err)
	}
	release()
}

// readOnlyDir is an existing folder this process cannot write: a folder made read-only, or
// for root (whom permissions do not stop) /sys; the test is skipped where neither works.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	for _, d := range []string{dir, "/sys"} {
		if f, err := os.CreateTemp(d, "probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	t.Skip("no read-only folder to test with")
	return ""
}

// TestLockReadOnlyFolder: a data folder that cannot be written is ErrReadOnly (the app opens
// it read-only), not a plain error (issue 30: the app refused it outright).
func TestLockReadOnlyFolder(t *testing.T) {
	dir := readOnlyDir(t)
	if _, err := LockDataDir(dir); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("read-only folder: %v", err)
	}
	if err := CheckWritable(t.TempDir()); err != nil {
		t.Errorf("a writable folder: %v", err)
	}
}
