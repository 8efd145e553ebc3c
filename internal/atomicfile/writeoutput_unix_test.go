//go:build unix

package atomicfile_test

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

func writeString(s string) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error { _, err := w.WriteString(s); return err }
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// A symlinked output is written through (the link stays, its target changes), also when the
// target does not exist yet and through relative chains; before the fix the link itself was
// replaced by a regular file.
func TestWriteOutputFollowsSymlinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	os.Mkdir(real, 0o755)
	target := filepath.Join(real, "image.png")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(root, "link.png")
	os.Symlink("real/image.png", link)
	chain := filepath.Join(root, "chain.png")
	os.Symlink("link.png", chain)
	dangling := filepath.Join(root, "dangling.png")
	os.Symlink(filepath.Join(real, "new.png"), dangling)

	for _, p := range []string{link, chain} {
		if err := atomicfile.CheckOutput(p); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.WriteOutput(p, writeString("via "+filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink: %v %v", p, fi.Mode(), err)
		}
		if got, _ := os.ReadFile(target); string(got) != "via "+filepath.Base(p) {
			t.Errorf("target holds %q after writing %s", got, p)
		}
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target permissions %v, want 0600 kept", fi.Mode().Perm())
	}
	if err := atomicfile.WriteOutput(dangling, writeString("created")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(real, "new.png")); string(got) != "created" {
		t.Errorf("dangling link target holds %q", got)
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("dangling symlink was replaced")
	}
	// No temporary files are left anywhere.
	if got := dirNames(t, real); !slices.Equal(got, []string{"image.png", "new.png"}) {
		t.Errorf("files in target folder: %v", got)
	}
	loop := filepath.Join(root, "loop")
	os.Symlink("loop", loop)
	if err := atomicfile.WriteOutput(loop, writeString("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("symlink loop: %v", err)
	}
}

// A FIFO output is written to as a stream and stays a FIFO; before the fix it was replaced
// by a regular file. CheckOutput passes a FIFO with or without a reader at once.
func TestWriteOutputFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "out.png")
	hangguard.Within(t, 5*time.Second, func() {
		if err := atomicfile.CheckOutput(fifo); err != nil {
			t.Errorf("CheckOutput(FIFO without reader) = %v", err)
		}
	})
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	// With the reader waiting, the check must not open the FIFO: that would end the
	// reader's stream before anything was written (and the write would then block).
	time.Sleep(50 * time.Millisecond)
	if err := atomicfile.CheckOutput(fifo); err != nil {
		t.Errorf("CheckOutput(FIFO with reader) = %v", err)
	}
	hangguard.Within(t, 10*time.Second, func() {
		if err := atomicfile.WriteOutput(fifo, writeString("streamed")); err != nil {
			t.Error(err)
		}
		if s := <-got; s != "streamed" {
			t.Errorf("reader got %q", s)
		}
	})
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("FIFO replaced: %v %v", fi.Mode(), err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"out.png"}) {
		t.Errorf("files left: %v", got)
	}
}

// Device outputs are streamed to and stay devices. /dev/null accepts the data, /dev/full
// fails with ENOSPC; as root weights.WriteFile used to rename a regular file over the node (tested
// on a private copy of the null device, made with mknod, so no system node is at risk).
func TestWriteOutputDevices(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skip(err)
		}
		if err := atomicfile.CheckOutput(dev); err != nil {
			t.Errorf("CheckOutput(%s) = %v", dev, err)
		}
		err := atomicfile.WriteOutput(dev, writeString(strings.Repeat("x", 3000)))
		if want := dev == "/dev/full"; (err != nil) != want || (want && !strings.Contains(err.Error(), "no space left")) {
			t.Errorf("WriteOutput(%s) = %v", dev, err)
		}
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a character device: %v %v", dev, fi.Mode(), err)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	node := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(node, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // makedev(1, 3)
		t.Skip(err)
	}
	if err := atomicfile.WriteOutput(node, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(node); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("device node replaced by WriteOutput: %v %v", fi.Mode(), err)
	}
}

// Outputs that cannot be written are refused by CheckOutput before any work, without
// leaving anything behind.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	if err := atomicfile.CheckOutput(filepath.Join(dir, "new.png")); err != nil {
		t.Errorf("new file: %v", err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "x.png"), "does not exist"},
	} {
		if err := atomicfile.CheckOutput(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckOutput(%s) = %v, want %q", tc.path, err, tc.want)
		}
		if err := atomicfile.WriteOutput(tc.path, writeString("x")); err == nil {
			t.Errorf("WriteOutput(%s) succeeded", tc.path)
		}
	}
	if fi, _ := os.Stat(dir); !fi.IsDir() {
		t.Fatal("folder replaced")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if err := atomicfile.CheckOutput(filepath.Join(ro, "x.png")); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("read-only folder: %v", err)
		}
	}
	if got := dirNames(t, dir); len(got) > 1 {
		t.Errorf("files left: %v", got)
	}
}

// /dev/stdout is a link to /proc/self/fd/1, itself a "pipe:[N]" link that only the kernel
// can follow: it is written as a stream (before, it failed after the work was done).
func TestWriteOutputProcFdPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := filepath.Join("/proc/self/fd", strconv.Itoa(int(w.Fd())))
	if _, err := os.Lstat(path); err != nil {
		w.Close()
		t.Skip(err)
	}
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	hangguard.Within(t, 10*time.Second, func() {
		if err := atomicfile.CheckOutput(path); err != nil {
			t.Errorf("CheckOutput(%s) = %v", path, err)
		}
		if err := atomicfile.WriteOutput(path, writeString("through the pipe")); err != nil {
			t.Errorf("WriteOutput(%s) = %v", path, err)
		}
		w.Close()
		if s := <-got; s != "through the pipe" {
			t.Errorf("read %q", s)
		}
	})
}
