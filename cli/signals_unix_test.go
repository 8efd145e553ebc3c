//go:build unix

package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kleinbild/internal/atomicfile"
)

// sigtermChildEnv makes the test binary the child of TestSIGTERMFinishesTheWrite.
const sigtermChildEnv = "KLEINBILD_TEST_SIGTERM_CHILD"

// TestSIGTERMFinishesTheWrite: SIGTERM in the middle of an output's atomic write (what
// `timeout`, `kill`, systemd and `docker stop` send) is taken like Ctrl+C: the work's context
// is cancelled and the write finishes, where the process died and left its half-written
// hidden temporary file beside the output (issue 37 item 18). The child writes half the
// file, says so, and goes on only once the signal has cancelled its context.
func TestSIGTERMFinishesTheWrite(t *testing.T) {
	if out := os.Getenv(sigtermChildEnv); out != "" {
		if err := sigtermChild(out); err != nil {
			t.Fatal(err)
		}
		return // the test binary ends as usual: TestMain removes its temporary home
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.png")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGTERMFinishesTheWrite$", "-test.count=1")
	cmd.Env = append(os.Environ(), sigtermChildEnv+"="+out)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "writing" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q: %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if err != nil {
		t.Errorf("the child ended with %v, want a finished write", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "first half, second half" {
		t.Errorf("output holds %q", got)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			t.Errorf("temporary file %s left beside the output", e.Name())
		}
	}
}

// sigtermChild writes out as a command does, under interruptContext, and waits in the
// middle of the write for the signal to cancel the context.
func sigtermChild(out string) error {
	ctx, stop := interruptContext()
	defer stop()
	return atomicfile.WriteOutput(out, func(w *bufio.Writer) error {
		if _, err := w.WriteString("first half, "); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Println("writing")
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Minute):
			return fmt.Errorf("no signal came")
		}
		_, err := w.WriteString("second half")
		return err
	})
}

// TestSignalsHandledInOnePlace: every command takes its signals from interruptContext, so
// none handles SIGINT but dies of SIGTERM in the middle of a write (issue 37 item 18: seven
// commands asked for os.Interrupt alone).
func TestSignalsHandledInOnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "main.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "signals.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "signal.Notify") {
				t.Errorf("%s:%d: %s: take the signals from interruptContext", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
