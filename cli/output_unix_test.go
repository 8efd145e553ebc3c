//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
	"kleinbild/weights/golden"
)

// genArgs is a quick generation with the tiny model writing to out.
func genArgs(t *testing.T, out string) []string {
	return []string{"generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-s", "1", "-S", "1", "-q", "--no-cache", "-o", out}
}

// runWithin is run with a deadline, so that an output that blocks fails the test.
func runWithin(t *testing.T, d time.Duration, args ...string) (code int, stderr string) {
	t.Helper()
	hangguard.WithinLabel(t, d, fmt.Sprint(args), func() {
		var o, e bytes.Buffer
		code = Run(args, &o, &e)
		stderr = e.String()
	})
	return code, stderr
}

// -o through a symlink writes its target and keeps the link; -o a FIFO streams the PNG into
// it; -o /dev/null succeeds and leaves the device. Before the fix each of them was replaced
// by a regular file (as root /dev/null too; as non-root the image was computed first and
// the write then failed).
func TestGenerateOutputTargets(t *testing.T) {
	tmp := t.TempDir()
	os.Mkdir(filepath.Join(tmp, "real"), 0o755)
	link := filepath.Join(tmp, "link.png")
	os.Symlink("real/out.png", link)
	if code, errs := runWithin(t, 2*time.Minute, genArgs(t, link)...); code != 0 {
		t.Fatalf("symlink output: exit %d: %s", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	if f, err := os.Open(filepath.Join(tmp, "real", "out.png")); err != nil {
		t.Errorf("symlink target not written: %v", err)
	} else if _, err := png.Decode(f); err != nil {
		t.Errorf("symlink target: %v", err)
	}

	fifo := testfix.FIFO(t, tmp, "fifo.png")
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	if code, errs := runWithin(t, 2*time.Minute, genArgs(t, fifo)...); code != 0 {
		t.Fatalf("FIFO output: exit %d: %s", code, errs)
	}
	var b []byte
	hangguard.WithinLabel(t, 10*time.Second, "the reader of "+fifo, func() { b = <-got })
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("FIFO reader got %d bytes: %v", len(b), err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}

	if code, errs := runWithin(t, 2*time.Minute, genArgs(t, "/dev/null")...); code != 0 {
		t.Errorf("-o /dev/null: exit %d: %s", code, errs)
	}
	if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 3 {
		t.Errorf("left in the output folder: %v", entries)
	}
}

// An output that cannot be written is refused before the model is even opened: the model
// folder here does not exist, so an error about it means the output was checked too late
// (before the fix: generate and encode only found out after computing).
func TestOutputCheckedBeforeWork(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "no-model")
	cases := []struct{ out, want string }{
		{tmp, "is a directory"},
		{filepath.Join(tmp, "no", "o.png"), "output folder"},
	}
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		cases = append(cases, struct{ out, want string }{"/proc/kleinbild-test.png", "cannot create a file in /proc"})
	}
	for _, c := range cases {
		for _, cmd := range []string{"generate", "encode"} {
			code, errs := runWithin(t, 30*time.Second, cmd, "-d", missing, "-p", "x", "-o", c.out)
			if code != 1 || !strings.Contains(errs, c.want) || strings.Contains(errs, "no-model") {
				t.Errorf("%s -o %s: exit %d, %q; want exit 1 mentioning %q", cmd, c.out, code, errs, c.want)
			}
		}
	}
	if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() {
		t.Fatal("output folder replaced")
	}
}

// isWholePNG tells whether b is exactly one PNG file: the signature first, the IEND chunk
// last, and decodable.
func isWholePNG(b []byte) bool {
	iend := []byte{0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || !bytes.HasSuffix(b, iend) {
		return false
	}
	_, err := png.Decode(bytes.NewReader(b))
	return err == nil
}

// With the image on standard output (-o -, or -o /dev/stdout which is a /dev/fd path to
// the same pipe), standard output carries the PNG alone and the seed goes to stderr. Before
// the fix "Seed: 1" preceded the PNG bytes.
func TestGenerateToStdout(t *testing.T) {
	var o, e bytes.Buffer
	if code := Run(genArgs(t, "-"), &o, &e); code != 0 {
		t.Fatalf("-o -: exit %d: %s", code, e.String())
	}
	if !isWholePNG(o.Bytes()) {
		t.Errorf("-o -: standard output is not exactly a PNG (%d bytes, starting %q)", o.Len(), o.Bytes()[:min(o.Len(), 16)])
	}
	if !strings.Contains(e.String(), "Seed: 1") {
		t.Errorf("-o -: no seed on stderr: %q", e.String())
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	e.Reset()
	code := Run(genArgs(t, fmt.Sprintf("/dev/fd/%d", w.Fd())), w, &e)
	w.Close()
	b := <-got
	if code != 0 {
		t.Fatalf("-o /dev/fd/N: exit %d: %s", code, e.String())
	}
	if !isWholePNG(b) {
		t.Errorf("-o the standard output's pipe: it got not exactly a PNG (%d bytes, starting %q)", len(b), b[:min(len(b), 16)])
	}
	if !strings.Contains(e.String(), "Seed: 1") {
		t.Errorf("-o the standard output's pipe: no seed on stderr: %q", e.String())
	}
}
