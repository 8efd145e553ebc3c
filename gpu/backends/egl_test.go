package backends

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// brokenEGL are environments in which wgpu-hal's EGL probe panics inside wgpuCreateInstance
// (gfx-rs/wgpu#6165): libglvnd finds no usable vendor file.
var brokenEGL = []string{
	"__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json",
	"__EGL_VENDOR_LIBRARY_FILENAMES=/dev/null",
	"__EGL_VENDOR_LIBRARY_FILENAMES=",
	"__EGL_VENDOR_LIBRARY_DIRS=/nonexistent",
}

const envEGLChild = "KLEINBILD_TEST_EGL_CHILD"

// TestDevicesBrokenEGL: listing the devices in a broken GL/EGL environment neither aborts
// the process nor loses the CPU backends (the WebGPU instance leaves OpenGL out). Each
// environment runs in a child process: the panic is an abort no test could recover.
func TestDevicesBrokenEGL(t *testing.T) {
	if os.Getenv(envEGLChild) == "1" {
		for _, d := range Devices() {
			fmt.Printf("device %s\n", d.ID)
		}
		return
	}
	for _, env := range brokenEGL {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDevicesBrokenEGL$", "-test.count=1")
		cmd.Env = append(os.Environ(), envEGLChild+"=1", env)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "panicked") {
			t.Errorf("%s: %v\n%s", env, err, lastLines(string(out), 8))
			continue
		}
		for _, name := range cpuNames() {
			if !strings.Contains(string(out), "device "+name+"\n") {
				t.Errorf("%s: %s missing from\n%s", env, name, out)
			}
		}
	}
}

func cpuNames() []string {
	var names []string
	for _, e := range cpuEntries() {
		names = append(names, e.name)
	}
	return names
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(len(l)-n, 0):], "\n")
}
