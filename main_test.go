package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 12, item 11: "kleinbild --data DIR" (gui flags without "gui") opens the app with
// those flags instead of failing as an unknown command.
func TestRoute(t *testing.T) {
	for _, c := range []struct {
		args  []string
		gui   bool
		flags []string
	}{
		{nil, true, nil},
		{[]string{"gui"}, true, []string{}},
		{[]string{"gui", "--data", "D"}, true, []string{"--data", "D"}},
		{[]string{"--data", "D"}, true, []string{"--data", "D"}},
		{[]string{"-data=D", "-prompt", "a cat"}, true, []string{"-data=D", "-prompt", "a cat"}},
		{[]string{"generate", "-p", "x"}, false, nil},
		{[]string{"help"}, false, nil},
		{[]string{"-h"}, false, nil},
		{[]string{"--help"}, false, nil},
	} {
		gui, flags := route(c.args)
		if gui != c.gui || !slices.Equal(flags, c.flags) || gui && (flags == nil) != (c.flags == nil) {
			t.Errorf("route(%q) = %v, %q; want %v, %q", c.args, gui, flags, c.gui, c.flags)
		}
	}
}

// Issue 12, item 11: under LANG=C.UTF-8 (the Debian and container default) Fyne printed
// "Fyne error: Error parsing user locale C" before every subcommand's own output.
func TestSubcommandsQuietUnderCLocale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "kleinbild")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, loc := range []string{"C.UTF-8", "C", "POSIX"} {
		cmd := exec.Command(bin, "help")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANGUAGE=")
		}), "LANG="+loc)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("LANG=%s: %v\n%s", loc, err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("LANG=%s: kleinbild help wrote to stderr:\n%s", loc, stderr.String())
		}
	}
}

// Without a desktop session (no XDG_RUNTIME_DIR: containers, CI, ssh) libwayland printed
// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." five times before
// every subcommand that looks for a GPU (info, generate, encode, bench, devices). (Progress
// lines on stderr are generate's own.)
func TestSubcommandsQuietWithoutSession(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tiny := filepath.Join("..", "shared", "golden", "model", "tiny-flux2-klein")
	if _, err := os.Stat(tiny); err != nil {
		t.Skipf("tiny golden model: %v", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kleinbild")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") || strings.HasPrefix(kv, "WAYLAND_DISPLAY=")
	})
	for _, args := range [][]string{
		{"info", "-d", tiny},
		{"devices"},
		{"generate", "-d", tiny, "-p", "a red cube", "-W", "64", "-H", "64", "-o", filepath.Join(dir, "out.png")},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kleinbild %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if strings.Contains(stderr.String(), "XDG_RUNTIME_DIR") {
			t.Errorf("kleinbild %s complained about the missing session:\n%s", strings.Join(args, " "), stderr.String())
		}
	}
}

func TestNoWaylandWithoutSession(t *testing.T) {
	for _, c := range []struct {
		runtime, wayland, want string
	}{
		{"", "", "/nonexistent/kleinbild-no-wayland-session"},
		{"/run/user/1000", "", ""},
		{"", "wayland-1", "wayland-1"},
		{"/run/user/1000", "wayland-0", "wayland-0"},
	} {
		env := map[string]string{"XDG_RUNTIME_DIR": c.runtime, "WAYLAND_DISPLAY": c.wayland}
		noWaylandWithoutSession(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if env["WAYLAND_DISPLAY"] != c.want {
			t.Errorf("XDG_RUNTIME_DIR=%q WAYLAND_DISPLAY=%q: got WAYLAND_DISPLAY=%q, want %q", c.runtime, c.wayland, env["WAYLAND_DISPLAY"], c.want)
		}
	}
}

// TestGUIWithoutDisplay: the app started without a display (`make run` over ssh, in a
// container) says so in one line and exits 1; it panicked in GLFW's initCursors with a
// 30-line stack trace, exit 2 (issue 37).
func TestGUIWithoutDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "kleinbild")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--data", t.TempDir())
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "DISPLAY=") || strings.HasPrefix(kv, "WAYLAND_DISPLAY=")
	})
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	msg := stderr.String()
	if !strings.Contains(msg, "no display found: run it in a desktop session, or use `kleinbild generate`") ||
		strings.Contains(msg, "goroutine") || strings.Count(msg, "\n") > 1 {
		t.Errorf("stderr:\n%s", msg)
	}
}
